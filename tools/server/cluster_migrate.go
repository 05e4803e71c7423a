package server

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// Moving slots to another node (an extension; see the README's cluster
// section for the whole procedure):
//
//	MBF.MIGRATE START-END[,START-END...] DESTDIR
//	    pauses the slots on this node (every keyed command on them gets
//	    -TRYAGAIN, which cluster clients retry), waits for the commands
//	    in flight, syncs and copies the files of their keys into DESTDIR
//	    (the target node's data directory, or a staging directory to
//	    copy from), and answers the number of filters copied (keys, and
//	    buckets of folded keys: see fold.go). The slots stay paused until
//	    a reloaded config gives them to another node.
//	MBF.MIGRATE CANCEL
//	    ends every pause of this node.

func mbfMigrate(c *client, args [][]byte) {
	s := c.s
	if s.cluster.Load() == nil {
		c.w.WriteError(clusterDisabled)
		return
	}
	if len(args) == 2 && eq(args[1], "CANCEL") {
		s.setPaused(nil)
		c.w.WriteString("OK")
		return
	}
	if len(args) != 3 {
		c.w.WriteError(wrongArity("mbf.migrate"))
		return
	}
	ranges, err := cluster.ParseRanges(string(args[1]))
	if err == nil {
		err = s.notOwnDir(string(args[2]))
	}
	if err == nil {
		err = s.pause(ranges)
	}
	if err != nil {
		c.w.WriteError("ERR " + err.Error())
		return
	}
	n, err := s.export(ranges, string(args[2]))
	if err != nil {
		c.w.WriteError("ERR " + err.Error() + " (slots stay paused; MBF.MIGRATE CANCEL resumes them)")
		return
	}
	c.w.WriteInt(n)
}

// notOwnDir refuses a destination that is this node's own data
// directory (the same device and inode, whatever the path: a symbolic
// link, a bind mount): a copy there would rename over the live files
// and remove the live set directories it copies. A destination that
// cannot be looked at is left to the copy to report.
func (s *Server) notOwnDir(dest string) error {
	own, err := os.Stat(s.cfg.Dir)
	if err != nil {
		return err
	}
	if st, err := os.Stat(dest); err == nil && os.SameFile(own, st) {
		return fmt.Errorf("%s is this node's own data directory: give the target node's directory (nothing paused)", dest)
	}
	return nil
}

// setPaused publishes the cluster state with paused ranges rs.
func (s *Server) setPaused(rs []cluster.Range) {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	cs := *s.cluster.Load()
	cs.paused = rs
	s.cluster.Store(&cs)
}

// pause adds rs, which this node must own, to the paused ranges, then
// waits until no keyed command that entered before is still running.
func (s *Server) pause(rs []cluster.Range) error {
	s.reloadMu.Lock()
	cs := *s.cluster.Load()
	for _, r := range rs {
		if !cs.m.Owns(cs.me, r) {
			s.reloadMu.Unlock()
			return fmt.Errorf("slots %d-%d are not all owned by node %s", r.Start, r.End, cs.me.ID)
		}
	}
	cs.paused = append(append([]cluster.Range(nil), cs.paused...), rs...)
	s.cluster.Store(&cs)
	s.reloadMu.Unlock()
	s.gate.Lock()
	//lint:ignore SA2001 an empty critical section: it drains the readers
	s.gate.Unlock()
	return nil
}

// export syncs and copies into dir the file of every key of this node
// whose slot is in rs, returning how many it copied.
func (s *Server) export(rs []cluster.Range, dir string) (int, error) {
	keys, err := s.store.Keys()
	if err != nil {
		return 0, err
	}
	buckets, err := s.bucketsToMove(rs, dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, k := range keys {
		if !inRanges(cluster.KeySlot([]byte(k)), rs) {
			continue
		}
		if err := s.exportKey([]byte(k), dir); err != nil {
			return n, fmt.Errorf("key %q: %w", k, err)
		}
		n++
	}
	for _, stem := range buckets {
		if err := s.exportStem(stem, dir); err != nil {
			return n, fmt.Errorf("bucket of folded keys %s: %w", stem, err)
		}
		n++
	}
	return n, nil
}

func inRanges(slot int, rs []cluster.Range) bool {
	for _, r := range rs {
		if r.Start <= slot && slot <= r.End {
			return true
		}
	}
	return false
}

// exportKey syncs key's filter and copies it into dir (exportStem).
func (s *Server) exportKey(key []byte, dir string) error {
	stem, err := keyname.Stem(key)
	if err != nil {
		return err
	}
	return s.exportStem(stem, dir)
}

// exportStem syncs the filter named stem and copies its file into dir
// (through a temporary file, synced, then renamed over any older copy),
// or its set directory (exportSet).
func (s *Server) exportStem(stem, dir string) error {
	file, _ := s.store.StemPaths(stem)
	e, err := s.store.Acquire(stem, nil)
	if err != nil {
		return err
	}
	defer s.store.Release(e, false)
	if err := e.Bloom().Sync(); err != nil {
		return err
	}
	if st, ok := e.Bloom().(store.Set); ok {
		return exportSet(st, dir)
	}
	return copyFile(file, filepath.Join(dir, filepath.Base(file)))
}

// exportSet copies a set into dir with Set.Export (at one generation,
// under the set's shared LOCK, synced), under a temporary name that is
// then renamed into place, so the copy appears whole. An older copy
// there is first removed with mmapbloom.RemoveSet, which refuses
// (mmapbloom.ErrInUse) while any process has it open; a directory there
// that is not a set is left alone (the rename then fails).
func exportSet(st store.Set, dir string) error {
	name := filepath.Base(st.Dir())
	tmp := filepath.Join(dir, "."+name+".migrate"+strconv.Itoa(os.Getpid()))
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := st.Export(tmp, nil); err != nil {
		return err
	}
	dst := filepath.Join(dir, name)
	if err := mmapbloom.RemoveSet(dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
		_ = os.RemoveAll(tmp)
		return err
	}
	return os.Rename(tmp, dst)
}

// copyFile copies the filter file src to dst through a temporary file,
// synced, then renamed over dst by mmapbloom.Replace, which refuses
// (mmapbloom.ErrInUse) while any process has dst open.
func copyFile(src, dst string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := dst + ".migrate" + strconv.Itoa(os.Getpid())
	out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	_, err = io.Copy(out, in)
	err = errors.Join(err, out.Sync(), out.Close())
	if err != nil {
		return err
	}
	return mmapbloom.Replace(tmp, dst)
}
