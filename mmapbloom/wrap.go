package mmapbloom

import (
	"fmt"
	"strings"
)

// prefix starts every error message of the package, once.
const prefix = "mmapbloom: "

// wrapf returns err with the context format and args give, for an err
// that may come from another call of the package and so carry the
// prefix already: the message reads "mmapbloom: CONTEXT: MESSAGE", err's
// message without its own prefix. errors.Is and errors.As see err.
func wrapf(err error, format string, args ...any) error {
	return &wrapped{
		msg: prefix + fmt.Sprintf(format, args...) + ": " + strings.TrimPrefix(err.Error(), prefix),
		err: err,
	}
}

// wrapped is an error with context, made by wrapf.
type wrapped struct {
	msg string
	err error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.err }
