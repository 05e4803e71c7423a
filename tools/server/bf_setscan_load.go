package server

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/internal/durable"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// BF.LOADCHUNK of a set's dump (bf_setscan.go) into a missing key: the
// first chunk is checked whole (every size within the limits, admitted
// at the set's full size) before anything is created; the layers are
// then built, in order, in a hidden directory beside the key's, which
// is renamed into place once the last layer's last byte arrived and the
// set opens, so the key appears whole or not at all.

// setLoad is a set's BF.LOADCHUNK in progress.
type setLoad struct {
	head  *setHead
	stem  string   // the key's file-name stem
	tmp   string   // the hidden directory the set is built in
	lock  *os.File // tmp opened, holding its flock (store.LockedTempDir)
	path  string   // the key's set directory, renamed from tmp at the end
	total uint64   // bytes admitted by lim
	lim   *store.Limiter
	owner int64

	loadState
	cur int      // the layer receiving pieces
	f   *os.File // its file
	got uint64   // bytes of its bit array received
}

// startSetLoad begins loading key of st for client owner from the
// first chunk of a set's dump: errBadData if it does not decode,
// ErrKeyExists if key exists, a *store.LimitError past the limits. The
// load keeps a copy of chunk (the head decoded aliases it; a command's
// arguments alias the connection's buffer).
func startSetLoad(st *store.Store, owner int64, key, chunk []byte) error {
	stem, err := keyname.Stem(key)
	if err != nil {
		return err
	}
	head, err := decodeSetHead(bytes.Clone(chunk))
	if err != nil {
		return err
	}
	lim := st.Limiter()
	total, err := setSize(lim, head)
	if err != nil {
		return err
	}
	return st.StartLoad(key, func(_, set string) (store.Load, error) {
		if err := lim.AdmitLoad(owner, total); err != nil {
			return nil, err
		}
		l := &setLoad{head: head, stem: stem, path: set, total: total, lim: lim, owner: owner, loadState: loadState{last: time.Now()}}
		if err := l.begin(st.Dir()); err != nil {
			return nil, err
		}
		return l, nil
	})
}

// setSize checks a set dump's layers against MaxLayers, MaxFilterBytes
// (each layer file) and the disk's room (all of them), and returns
// their total size.
func setSize(lim *store.Limiter, h *setHead) (uint64, error) {
	if err := lim.LayerCount(len(h.layers)); err != nil {
		return 0, err
	}
	var total uint64
	for _, ly := range h.layers {
		size := format.HeaderSize + ly.hdr.ByteSize
		if ly.hdr.ByteSize == 0 || ly.hdr.ByteSize > math.MaxInt64-format.HeaderSize {
			return 0, fmt.Errorf("%w: layer %s of %d bytes", errBadData, ly.name, ly.hdr.ByteSize)
		}
		if err := lim.FileSize(size); err != nil {
			return 0, err
		}
		if total += size; total < size {
			return 0, fmt.Errorf("%w: set of more than 2^64 bytes", errBadData)
		}
	}
	return total, lim.DiskRoom(total)
}

// begin makes the hidden directory in dir and the first layer's file;
// on an error, it releases the admission.
func (l *setLoad) begin(dir string) error {
	var err error
	if l.tmp, l.lock, err = store.LockedTempDir(dir, l.path, "load"); err == nil {
		err = l.openLayer()
	}
	if err != nil {
		l.release()
	}
	return err
}

// openLayer creates the file of layer l.cur from its header, sized.
func (l *setLoad) openLayer() error {
	ly := l.head.layers[l.cur]
	f, err := os.OpenFile(filepath.Join(l.tmp, ly.name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	l.f, l.got = f, 0
	if _, err = f.WriteAt(ly.raw, 0); err == nil {
		err = f.Truncate(int64(format.HeaderSize + ly.hdr.ByteSize))
	}
	return err
}

// loadSetPiece writes a piece of key's set load in st; the piece that
// completes the last layer publishes the set. ErrNotFound when no set
// load of key is running. A piece refused ends the load.
func loadSetPiece(st *store.Store, key []byte, it int64, data []byte) error {
	l, ok := st.Loading(key).(*setLoad)
	if !ok {
		return ErrNotFound
	}
	complete, err := l.piece(it, data)
	if (err == nil && !complete) || errors.Is(err, ErrNotFound) {
		return err
	}
	st.Loaded(key, l)
	if err != nil { // a bad piece ends the load: its files go
		l.Abort()
		return err
	}
	defer l.release()
	if err := l.check(); err != nil {
		return err
	}
	return st.InstallMissing(l.stem, func(_, set string) error { // set is l.path
		if err := os.Rename(l.tmp, set); err != nil {
			return err
		}
		return durable.SyncDir(st.Dir())
	})
}

// piece writes the piece of iterator it (layer number<<layerBits |
// end+1) and reports whether it completed the set. errBadData unless it
// is the next piece of the layer receiving pieces.
func (l *setLoad) piece(it int64, data []byte) (complete bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return false, ErrNotFound
	}
	ly := l.head.layers[l.cur]
	off := it&layerMask - 1 - int64(len(data))
	if it < 0 || uint64(it)>>layerBits != ly.num || len(data) == 0 || off < 0 || uint64(off) != l.got || l.got+uint64(len(data)) > ly.hdr.ByteSize {
		return false, fmt.Errorf("%w: piece of iterator %d (%d bytes) is not the next of layer %s at %d", errBadData, it, len(data), ly.name, l.got)
	}
	if _, err := l.f.WriteAt(data, format.HeaderSize+off); err != nil {
		return false, err
	}
	l.got += uint64(len(data))
	l.last = time.Now()
	if l.got < ly.hdr.ByteSize {
		return false, nil
	}
	return l.nextLayer()
}

// nextLayer closes the complete layer, durably, and opens the next one;
// complete when it was the last.
func (l *setLoad) nextLayer() (complete bool, err error) {
	err = errors.Join(l.f.Sync(), l.f.Close())
	l.f = nil
	if err != nil {
		return false, err
	}
	if l.cur++; l.cur == len(l.head.layers) {
		l.done = true
		return true, nil
	}
	return false, l.openLayer()
}

// check checks each complete layer as a fixed load's (checkLoaded),
// writes the MANIFEST and opens the set as the library would:
// errBadData if any of it fails.
func (l *setLoad) check() error {
	for _, ly := range l.head.layers {
		if err := checkLoaded(filepath.Join(l.tmp, ly.name), ly.hdr); err != nil {
			return err
		}
	}
	err := mmapbloom.AdoptSetManifest(l.tmp, l.head.manifest)
	if err == nil {
		var st *mmapbloom.Set
		if st, err = mmapbloom.OpenSet(l.tmp, &mmapbloom.OpenOptions{ReadOnly: true}); err == nil {
			err = st.Close()
		}
	}
	if err != nil {
		return fmt.Errorf("%w: %w", errBadData, err)
	}
	return nil
}

// Abort drops a set load not claimed by its completion.
func (l *setLoad) Abort() {
	if l.claim() {
		l.release()
	}
}

// release removes what remains of the hidden directory (nothing once
// renamed into place) and returns the admission to the limiter.
func (l *setLoad) release() {
	if l.f != nil {
		_ = l.f.Close()
	}
	if l.lock != nil {
		_ = l.lock.Close()
	}
	if l.tmp != "" {
		_ = os.RemoveAll(l.tmp)
	}
	l.lim.EndLoad(l.owner, l.total)
}
