// Package powercut mounts a directory through a FUSE passthrough that can
// lose power: a test's processes write into the mount as into any
// directory, and Cut puts the directory underneath back to what the last
// fsync of each file had made durable, as a power cut or kernel crash
// leaves a disk; Fail makes every write and fsync answer EIO, as a failed
// disk does. It is for tests only, needs Linux, root and /dev/fuse, and
// is the Go counterpart of Jepsen's LazyFS (which keeps unsynced data in
// its own cache), built on github.com/hanwen/go-fuse/v2's loopback node.
//
// # Basics
//
// Mount(t, dir) serves dir (the "disk") at a new mount point, from a
// child process (the test binary run again, which init turns into the
// FUSE server): a FUSE server in the process whose threads fault on
// mapped pages of the mount can deadlock it, the faulting thread holding
// the mmap lock the server's own allocations wait for. Writes go
// through to dir at once, each keeping an undo record of the bytes and
// size it replaced; an fsync or fdatasync of a file (msync(MS_SYNC) of a
// shared mapping ends in one) drops that file's records. Cut stops every
// later write (EIO), applies the records of every file in reverse order
// and fsyncs the result: dir then holds exactly what was synced. The
// test then kills the processes that used the mount and calls Unmount,
// and opens dir again (directly, or through a new Mount).
//
// Dirty pages of a shared mapping reach the filesystem only as writes at
// msync or at the kernel's own write-back; those not written by the cut
// are lost with it, as on a real machine (the mount's page cache goes
// with the mount).
//
// # Caveats
//
// Only file data and sizes are undone: creating, renaming and removing
// files and directories reach dir at once and survive a cut, as on a
// filesystem that journals its metadata in order (ext4's data=ordered
// without its delayed allocation). A test of what an unsynced rename
// loses needs another tool.
package powercut
