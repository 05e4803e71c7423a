package server

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// appendfsync: when the writes a client was answered for reach the disk,
// with Redis's parameter, values and meaning (its append-only file's
// fsync policy; here a Sync of the open filters, syncFilters, stands for
// the fsync):
//
//   - always: a pipeline's replies are written only once a Sync that
//     started after its last write completed. One goroutine (fsyncLoop)
//     runs the Syncs back to back; every writer waiting joins the next
//     one (group commit), so concurrent and pipelined writes share it.
//   - everysec: the same goroutine syncs once a second when a write ran
//     since the last Sync began; a power cut loses at most the writes of
//     the last second and of the Sync then running (about two seconds).
//   - no: the kernel's write-back alone (about 30 s), as before: a Sync
//     only at WAITAOF 1, a replica's apply of the log, and shutdown.
//
// A failed Sync, in any mode, is recorded by syncFilters, so writes then
// answer MISCONF (save.go); with always and everysec the goroutine tries
// again each second, and the first good Sync lets writes through. With
// always, a pipeline whose Sync failed gets no reply: its connection is
// closed, as Redis exits when an fsync of its always-synced file fails,
// so no write is acknowledged that was not made durable.

// Values of Config.AppendFsync and CONFIG SET appendfsync (Redis's).
const (
	AppendFsyncAlways   = "always"
	AppendFsyncEverysec = "everysec"
	AppendFsyncNo       = "no"
)

// DefaultAppendFsync is Config.AppendFsync's default (docs/operations.md
// gives the measurements that chose it).
const DefaultAppendFsync = AppendFsyncEverysec

// fsyncPolicy is an appendfsync value.
type fsyncPolicy int32

const (
	fsyncNo fsyncPolicy = iota
	fsyncEverysec
	fsyncAlways
)

// fsyncNames are the policies' names.
var fsyncNames = [...]string{fsyncAlways: AppendFsyncAlways, fsyncEverysec: AppendFsyncEverysec, fsyncNo: AppendFsyncNo}

// parseFsync returns the policy named v (in any case).
func parseFsync(v string) (fsyncPolicy, bool) {
	for p, name := range fsyncNames {
		if strings.EqualFold(v, name) {
			return fsyncPolicy(p), true
		}
	}
	return fsyncNo, false
}

// checkAppendFsync fills Config.AppendFsync's default and refuses any
// other value than Redis's three.
func checkAppendFsync(cfg *Config) error {
	if cfg.AppendFsync == "" {
		cfg.AppendFsync = DefaultAppendFsync
	}
	if _, ok := parseFsync(cfg.AppendFsync); !ok {
		return fmt.Errorf("server: %w: appendfsync %q: want always, everysec or no", ErrBadConfig, cfg.AppendFsync)
	}
	return nil
}

// fsyncInterval is everysec's period, and how often a failed Sync is
// tried again with always or everysec.
const fsyncInterval = time.Second

// syncer runs the Syncs of the appendfsync policy on one goroutine
// (fsyncLoop), from New to Shutdown.
type syncer struct {
	policy atomic.Int32 // fsyncPolicy
	dirty  atomic.Bool  // a write command ran since the last Sync began

	mu   sync.Mutex
	next *syncRound // the Sync writers join: it starts after they join

	kick chan struct{} // a writer waits for next (capacity 1)
	stop chan struct{} // closed by Shutdown
	done chan struct{} // closed when fsyncLoop returned

	// hooks, when set (by tests), see writers join and Syncs start.
	hooks atomic.Pointer[syncHooks]
}

// syncHooks are a test's views of the group commit.
type syncHooks struct {
	joined func() // a writer joined the next Sync (wait)
	start  func() // a Sync starts (syncRound)
}

// syncRound is one Sync of fsyncLoop: done is closed once it completed
// with err.
type syncRound struct {
	done chan struct{}
	err  error
}

// newSyncer returns the syncer of Config.AppendFsync, for New to start
// its fsyncLoop.
func (s *Server) newSyncer() *syncer {
	p, _ := parseFsync(s.cfg.AppendFsync)
	f := &syncer{next: &syncRound{done: make(chan struct{})}, kick: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{})}
	f.policy.Store(int32(p))
	s.store.SetSyncOnClose(p != fsyncNo)
	return f
}

func (f *syncer) get() fsyncPolicy { return fsyncPolicy(f.policy.Load()) }

// stopFsync ends fsyncLoop (Shutdown, once no client waits on it).
func (s *Server) stopFsync() {
	close(s.fsync.stop)
	<-s.fsync.done
}

// fsyncLoop runs a round (save_journal.go's persistRound) when a writer
// waits (always) or, each fsyncInterval, when roundDue, until
// stopFsync.
func (s *Server) fsyncLoop() {
	f := s.fsync
	defer close(f.done)
	tick := time.NewTicker(fsyncInterval)
	defer tick.Stop()
	for {
		select {
		case <-f.stop:
			return
		case <-f.kick:
		case <-tick.C:
			if !s.roundDue() {
				continue
			}
		}
		s.syncRound()
	}
}

// roundDue reports whether fsyncLoop's tick runs a round: everysec's
// Sync when a write ran since the last, a retry after a failed one
// (always and everysec), a checkpoint of the journal appendfsync always
// left behind.
func (s *Server) roundDue() bool {
	p := s.fsync.get()
	switch {
	case p == fsyncEverysec && s.fsync.dirty.Load():
		return true
	case p != fsyncNo && s.obs.syncs.failed.Load():
		return true
	}
	return p != fsyncAlways && s.journal != nil && s.journal.HasFiles()
}

// syncRound runs the Sync the writers waiting joined, and opens the next.
func (s *Server) syncRound() {
	f := s.fsync
	f.mu.Lock()
	r := f.next
	f.next = &syncRound{done: make(chan struct{})}
	f.mu.Unlock()
	f.dirty.Store(false)
	if h := f.hooks.Load(); h != nil {
		h.start()
	}
	r.err = s.persistRound()
	close(r.done)
}

// wait returns once a Sync that started after the call completed, with
// its error.
func (f *syncer) wait() error {
	f.mu.Lock()
	r := f.next
	f.mu.Unlock()
	if h := f.hooks.Load(); h != nil {
		h.joined()
	}
	f.startSync()
	<-r.done
	return r.err
}

// startSync tells fsyncLoop to run a Sync (BGSAVE, and wait's writers),
// without waiting for it.
func (f *syncer) startSync() {
	select {
	case f.kick <- struct{}{}:
	default: // a kick is pending: fsyncLoop has yet to start the next Sync
	}
}

// noteWrite marks that c runs cmd, unless cmd is queued in MULTI (EXEC
// runs it later through prepare again) or published to the log (its
// PubAck is its durability: the JetStream store syncs as appendfsync
// says, logSync, and every node replays from a position its synced
// filters cover): afterWrites then waits for the policy's Sync.
func (c *client) noteWrite(cmd *command) {
	if cmd.write && !c.tx.on && !c.s.logs(c, cmd) {
		c.wrote = true
	}
}

// afterWrites ends a pipeline that ran a write command: everysec's
// goroutine is told there is something to sync; with always it returns
// once a Sync covering the writes completed, or, when that Sync failed,
// drops the pipeline's replies and ends the connection.
func (s *Server) afterWrites(c *client) {
	if !c.wrote {
		return
	}
	c.wrote = false
	f := s.fsync
	if !f.dirty.Load() {
		f.dirty.Store(true)
	}
	if f.get() != fsyncAlways {
		return
	}
	if err := f.wait(); err != nil {
		s.cfg.Log.Printf("appendfsync always: %v: closing client id=%d without its replies", err, c.id)
		c.w.Reset()
		c.quit = true
	}
}

// appendfsyncParam is CONFIG GET/SET appendfsync (in the CONFIG table,
// generic_config.go).
func appendfsyncParam() *configParam {
	return &configParam{
		name: "appendfsync",
		get:  func(s *Server) string { return fsyncNames[s.fsync.get()] },
		set: func(s *Server, v string) (func(), string) {
			p, ok := parseFsync(v)
			if !ok {
				return nil, "argument(s) must be one of the following: everysec, always, no"
			}
			return func() {
				s.fsync.policy.Store(int32(p))
				s.store.SetSyncOnClose(p != fsyncNo)
			}, ""
		},
	}
}

// aofInfo sets INFO persistence's aof_enabled and aof_last_write_status
// in fields while appendfsync is not no: 1, and ok or err as the last
// Sync went.
func (s *Server) aofInfo(fields [][2]string) [][2]string {
	if s.fsync.get() == fsyncNo {
		return fields
	}
	for i := range fields {
		switch fields[i][0] {
		case "aof_enabled":
			fields[i][1] = "1"
		case "aof_last_write_status":
			if s.obs.syncs.failed.Load() {
				fields[i][1] = "err"
			}
		}
	}
	return fields
}
