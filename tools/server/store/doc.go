// Package store holds the parts of the server's store of filters that
// need neither a client nor the server: what a key's filter is (Bloom,
// Fixed, the Sets backend and LibrarySets), the limits on what clients
// can make the server allocate (Limits, Limiter, LimitError wrapping
// ErrLimit), the keys' expiry table and its EXPIRES file (Expiries), and
// the temporary files of loads (LockLoad, LockedTempDir,
// RemoveStaleLoads).
//
// # Basics
//
// The server opens one Limiter and one Expiries per data directory at
// start (NewLimiter, LoadExpiries), removes the loads a crash left
// (RemoveStaleLoads), and makes sets through Limiter.Sets, so that each
// new layer is checked against the limits. Every size a client names is
// checked (Room, FileOf, Header, StartLoad) before anything is
// allocated; a refusal is a *LimitError whose text is the reply after
// "ERR " and whose Local tells a refusal by this node's state (free
// disk, loads in progress) from one by the flags.
//
// # Caveats
//
// The store of open filters itself (opening without the lock, the file
// check, eviction, RENAME) is still the server's
// (tools/server/store*.go): it holds the command path's loads and the
// syncs of appendfsync. Expiries' lock is taken after that store's
// lock, never before.
package store
