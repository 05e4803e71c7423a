package main

import (
	"errors"
	"io"
)

// errStopped is returned by a stopReader once its stop channel is closed.
var errStopped = errors.New("input stopped")

// stopped reports whether the input's stop channel is closed.
func (in *keyInput) stopped() bool {
	select {
	case <-in.stop:
		return true
	default:
		return false
	}
}

// reader returns the reader of a source: r, or with a stop channel r read
// through a stopReader.
func (in *keyInput) reader(r io.Reader) io.Reader {
	if in.stop == nil {
		return r
	}
	return newStopReader(r, in.stop)
}

// stopChunks is the number of read buffers a stopReader cycles through.
const stopChunks = 3

// chunk is one Read of a stopReader's source.
type chunk struct {
	b   []byte
	err error
}

// stopReader reads its source in a goroutine, so that Read returns
// errStopped as soon as stop is closed, even while a Read of the source
// blocks (a quiet pipe). The goroutine also decompresses a .gz source
// while the keys before are hashed.
type stopReader struct {
	chunks chan chunk
	free   chan []byte
	stop   <-chan struct{}
	cur    chunk
	off    int
	held   bool // cur.b is a buffer of free's, to give back
}

// newStopReader starts reading r.
func newStopReader(r io.Reader, stop <-chan struct{}) *stopReader {
	s := &stopReader{chunks: make(chan chunk, stopChunks), free: make(chan []byte, stopChunks), stop: stop}
	for range stopChunks {
		s.free <- make([]byte, 64<<10)
	}
	go s.pump(r)
	return s
}

// pump reads r into free buffers until an error or stop.
func (s *stopReader) pump(r io.Reader) {
	for {
		var buf []byte
		select {
		case buf = <-s.free:
		case <-s.stop:
			return
		}
		n, err := r.Read(buf)
		select {
		case s.chunks <- chunk{b: buf[:n], err: err}:
		case <-s.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read copies from the chunks read, returning errStopped once stop is
// closed and the source's error after its last bytes.
func (s *stopReader) Read(p []byte) (int, error) {
	for s.off == len(s.cur.b) {
		if s.cur.err != nil {
			return 0, s.cur.err
		}
		if s.held {
			s.free <- s.cur.b[:cap(s.cur.b)]
			s.held = false
		}
		select {
		case <-s.stop:
			return 0, errStopped
		default:
		}
		select {
		case <-s.stop:
			return 0, errStopped
		case c := <-s.chunks:
			s.cur, s.off, s.held = c, 0, true
		}
	}
	n := copy(p, s.cur.b[s.off:])
	s.off += n
	return n, nil
}
