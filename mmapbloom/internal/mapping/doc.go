// Package mapping is the file layer under package mmapbloom's Filter and
// Set: it maps files shared (Map, Sequential) and private memory for a
// filter built before its file is written (Private, sized against
// Available, the kernel's MemAvailable), views mapped bytes as
// words for sync/atomic (Words, Uint32At; the library's unsafe is in
// unsafe.go), takes the advisory locks that coordinate the processes
// sharing a file (LockShared, Upgrade, ...), reserves the blocks of new
// and sparse files so that a full disk fails Create or Open and never an
// add (Reserve, Allocate), tells whether a faulting address lies in a
// mapping (Contains), asks how much of a mapping is in memory (Resident,
// a sample; ResidentBytes, every page) and for pages to be read ahead of
// their use (WillNeed), and writes files durably
// (WriteSynced, WriteFile, SyncDir). Errors are the sentinels of internal/errs, wrapped with the
// file name and the "mmapbloom:" prefix.
package mapping
