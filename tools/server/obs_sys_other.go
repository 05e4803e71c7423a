//go:build !linux

package server

import "runtime"

// residentSetBytes: -1, unknown off Linux.
func residentSetBytes() int64 { return -1 }

// totalMemory: 0, unknown off Linux.
func totalMemory() int64 { return 0 }

func osName() string { return runtime.GOOS + " " + runtime.GOARCH }
