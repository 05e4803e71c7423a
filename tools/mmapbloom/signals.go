package main

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// signals watches for SIGINT and SIGTERM while dedup or create --keys
// runs: the first closes stop, so that reading ends and the batch in
// flight is finished.
type signals struct {
	ch   chan os.Signal
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	got  os.Signal
}

// watchSignals starts watching; release stops it.
func watchSignals() *signals {
	s := &signals{ch: make(chan os.Signal, 1), stop: make(chan struct{}), done: make(chan struct{})}
	signal.Notify(s.ch, syscall.SIGINT, syscall.SIGTERM)
	go s.wait()
	return s
}

// wait records the first signal and closes stop.
func (s *signals) wait() {
	select {
	case sig := <-s.ch:
		s.mu.Lock()
		s.got = sig
		s.mu.Unlock()
		close(s.stop)
	case <-s.done:
	}
}

// caught returns the signal received, nil when none was.
func (s *signals) caught() os.Signal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.got
}

// release restores the default handling of the signals.
func (s *signals) release() {
	signal.Stop(s.ch)
	close(s.done)
}

// interrupted ends a command that a signal stopped (dedup, create
// --keys): status 128 + the signal's number, and one line saying what
// was done.
type interrupted struct {
	sig  os.Signal
	done string // what the command did before it stopped
}

// Error says which signal and what was done.
func (e *interrupted) Error() string {
	return fmt.Sprintf("interrupted by %s: %s", signalName(e.sig), e.done)
}

// status is 128 + the signal's number (130 for SIGINT, 143 for SIGTERM).
func (e *interrupted) status() int {
	if n, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return exitError
}

// signalName names sig as kill -l does, SIGINT or SIGTERM.
func signalName(sig os.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}
