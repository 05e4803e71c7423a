//go:build !linux

package server

import (
	"errors"
	"runtime"
)

// errNoMincore: the system cannot report page-cache residency (only
// Linux's is read).
var errNoMincore = errors.New("mincore not available")

func residentBytes(string) (int64, error) { return 0, errNoMincore }

// residentSetBytes: -1, unknown off Linux.
func residentSetBytes() int64 { return -1 }

// totalMemory: 0, unknown off Linux.
func totalMemory() int64 { return 0 }

func osName() string { return runtime.GOOS + " " + runtime.GOARCH }
