package main

import (
	"bufio"
	"errors"
	"io/fs"
	"syscall"
)

// exitBrokenPipe is the status when the reader of standard output went
// away (EPIPE, as `mmapbloom dedup ... | head`): 128 + SIGPIPE, the status
// a shell reports for a command SIGPIPE killed, with nothing on stderr.
const exitBrokenPipe = 128 + int(syscall.SIGPIPE)

// outputError is a failed write to standard output (ENOSPC, EIO): its
// message names the output, then says what became of the lines (note).
type outputError struct {
	err  error
	note string
}

// Error says "standard output: REASON", then the note.
func (e *outputError) Error() string {
	reason := e.err.Error()
	if pe := (*fs.PathError)(nil); errors.As(e.err, &pe) {
		reason = pe.Err.Error()
	}
	if e.note == "" {
		return "standard output: " + reason
	}
	return "standard output: " + reason + "; " + e.note
}

// Unwrap returns the write's error.
func (e *outputError) Unwrap() error { return e.err }

// flushOutput flushes the buffered standard output at the end of a
// command. When err already reports an output error, the (sticky) same
// error is not reported twice.
func flushOutput(out *bufio.Writer, err error) error {
	ferr := out.Flush()
	if oe := (*outputError)(nil); ferr == nil || errors.As(err, &oe) {
		return err
	}
	return errors.Join(err, &outputError{err: ferr})
}
