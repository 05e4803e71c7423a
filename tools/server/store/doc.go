// Package store is the server's store of filters, the part of it that
// needs neither a client nor the server: the open filters by key
// (Store: Acquire and Release around every command, Reserve, Exists,
// Remove, Keys, Rename, DiskBytes), what a key's filter is (Bloom,
// Fixed, the Sets backend and LibrarySets), the limits on what clients
// can make the server allocate (Limits, Limiter, LimitError wrapping
// ErrLimit), the keys' expiry table and its EXPIRES file (Expiries;
// Store's SetExpiry, Expiry, Persist), the BF.LOADCHUNKs in progress
// (Load, StartLoad) and their temporary files (LockLoad, LockedTempDir,
// RemoveStaleLoads), and a key's health sample (Health).
//
// # Basics
//
// The server opens one Limiter and one Expiries per data directory at
// start (NewLimiter, LoadExpiries), removes the loads a crash left
// (RemoveStaleLoads), and serves the directory through one Store (New).
// A command takes its key's Entry with Acquire, which opens the key's
// file or set directory at its first use (without the store's lock,
// open.go), or creates it from a Spec, and gives it back with Release;
// the store closes the filters no command used for the idle time, and
// the least recently used ones past the descriptor budget
// (Limits.FilterFiles), syncing them first while SetSyncOnClose is on
// (appendfsync always or everysec); SyncAll syncs the open ones. Every
// size a client names is checked (Room, FileOf, Header, StartLoad)
// before anything is allocated; a refusal is a *LimitError whose text
// is the reply after "ERR " and whose Local tells a refusal by this
// node's state (free disk, loads in progress) from one by the flags.
// Errors are the sentinels of errors.go, mmapbloom's, and LimitError.
//
// # Caveats
//
// What a load writes and checks (a dumped fixed filter, a set's dump)
// is the server's (tools/server/bf_dump.go,
// tools/server/bf_setscan_load.go), as are the replies: the store keeps
// the loads by key through the Load interface. Expiries' lock is taken after the Store's lock, never
// before. A key's file replaced behind the server is seen at its first
// use in the next file check period (filecheck.go).
package store
