package store

import (
	"errors"
	"syscall"
)

// Errors of the Store's methods (the server answers them with
// RedisBloom's texts, tools/server/conn_replies.go).
var (
	// ErrNotFound is returned for a key that has no file or set.
	ErrNotFound = errors.New("not found")

	// ErrKeyExists is returned when a key to create or load already has
	// a file or set.
	ErrKeyExists = errors.New("item exists")

	// ErrNoDescriptors is returned, wrapping the system's error, for a
	// key that could not be opened or created for lack of file
	// descriptors (EMFILE, ENFILE), once the filters no command uses were
	// closed; its text is the reply, retryable.
	ErrNoDescriptors = errors.New("TRYAGAIN too many open files: the key could not be opened now, retry later")
)

// NoDescriptors reports whether err is the system's lack of file
// descriptors (EMFILE, ENFILE).
func NoDescriptors(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}
