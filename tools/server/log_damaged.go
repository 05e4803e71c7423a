package server

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/replication"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
)

// Damaged filter files on a node of the log. The library refuses a
// file it cannot map as a filter (truncated, a header whose checksum
// fails, not a filter file) with format's and mmapbloom's sentinel
// errors; served as is, such a key answers that error to every command
// and stops every stream applying a write to it, for good. So before
// the log opens a node opens every filter file and set of its directory
// read-only (mmapbloom.Open validates the header and the file's length,
// reading nothing of the bit array), and for each one refused as
// damaged it forgets the recorded position of the key's stream
// (replication.ForgetPositions, durably, before anything moves) and
// then moves the file aside to .NAME.damaged-UNIXNANO (kept for the
// operator). The stream is then applied again from its first entry, or,
// when the log no longer holds it, copied from a peer (the bootstrap):
// the key is rebuilt whole from the log, and every other key of the
// stream gets its records again, which leaves it as it was (an add
// adds bits already set; a DEL, BF.RESERVE or load again in the log's
// order ends in the same state). Until the stream is applied again up to
// its last sequence when the log opened, this node answers no read of
// its slots (rebuilding): MOVED to the owner, or TRYAGAIN where it owns
// them. The position it had recorded is not enough: it lags what was
// applied by up to a checkpoint, and a node killed between checkpoints
// held in its files records past it (3 of a key's 5 adds answered
// absent so, in the damaged-file nemesis test); the stream's last
// sequence at the restart is past every record applied before it.
// Bits flipped inside a bit array are not detected: Open reads none of
// it (docs/cluster.md, "A damaged filter file is rebuilt from the log").

// damageErrors are the errors of mmapbloom.Open and OpenSet that say a
// file is not a filter this node can read: truncated, or its header or
// a set's MANIFEST damaged or foreign.
var damageErrors = []error{
	format.ErrShortHeader, format.ErrBadMagic, format.ErrUnknownVersion, format.ErrChecksum,
	format.ErrUnknownLayout, format.ErrUnknownScheme, format.ErrBadScheme, format.ErrUnknownFlags,
	format.ErrBadK, format.ErrSizeMismatch, format.ErrTooLarge, format.ErrTruncated, mmapbloom.ErrBadSet,
}

// damaged reports whether err, from opening a filter or set, is one of
// damageErrors.
func damaged(err error) bool {
	return slices.ContainsFunc(damageErrors, func(d error) bool { return errors.Is(err, d) })
}

// damagedFile is a filter file or set directory of the store that the
// library refuses as damaged.
type damagedFile struct {
	name    string // the directory entry
	err     error
	streams []int // the streams holding its slots
}

// findDamaged opens every filter file and set directory in dir
// read-only and returns those refused as damaged, with the streams of
// lay holding their slots (folding: buckets folded into buckets of
// 16384/buckets slots).
func findDamaged(dir string, lay replication.Layout, buckets int) ([]damagedFile, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []damagedFile
	for _, de := range ents {
		stem, set, ok := keyname.Split(de.Name())
		if !ok || set != de.IsDir() {
			continue
		}
		if err := checkOpen(filepath.Join(dir, de.Name()), set); damaged(err) {
			out = append(out, damagedFile{name: de.Name(), err: err, streams: stemStreams(stem, de.Name(), lay, buckets)})
		}
	}
	return out, nil
}

// checkOpen opens the filter file, or set directory, at path read-only
// and closes it, returning the opening's error.
func checkOpen(path string, set bool) error {
	var b interface{ Close() error }
	var err error
	if set {
		b, err = mmapbloom.OpenSet(path, &mmapbloom.OpenOptions{ReadOnly: true})
	} else {
		b, err = mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
	}
	if err != nil {
		return err
	}
	return b.Close()
}

// stemStreams returns the streams of lay holding the slots of the
// store entry name (stem and its suffix): its key's slot, or every slot
// of a folded bucket.
func stemStreams(stem, name string, lay replication.Layout, buckets int) []int {
	if _, b, _, ok := keyname.FoldedOf(name); ok && buckets > 0 {
		width := cluster.Slots / buckets
		var out []int
		for st := lay.StreamOf(b * width); st <= lay.StreamOf(min((b+1)*width, cluster.Slots)-1); st++ {
			out = append(out, st)
		}
		return out
	}
	key, _, _ := keyname.KeyOf(name)
	if key == "" {
		key = stem
	}
	return []int{lay.StreamOf(cluster.KeySlot([]byte(key)))}
}

// rebuild is the rebuild of one stream after a damaged file of its
// slots was moved aside (rebuildDamaged).
type rebuild struct {
	recorded uint64        // the position this node had recorded
	end      atomic.Uint64 // the last sequence to apply again; endUnknown until the log opens
}

// endUnknown is a rebuild's end before the log opened and gave the
// stream's last sequence: no read of the stream's slots is served.
const endUnknown = math.MaxUint64

// rebuildDamaged finds the damaged files of the store (findDamaged),
// forgets their streams' positions in posDir, then moves each file
// aside, logging it, and returns the rebuilds by stream, their ends
// unknown (rebuildEnds sets them once the log opens).
func (s *Server) rebuildDamaged(lay replication.Layout, posDir string) (map[int]*rebuild, error) {
	bad, err := findDamaged(s.cfg.Dir, lay, s.cfg.FoldBuckets)
	if err != nil || len(bad) == 0 {
		return nil, err
	}
	var streams []int
	for _, d := range bad {
		streams = append(streams, d.streams...)
	}
	slices.Sort(streams)
	streams = slices.Compact(streams)
	old, err := replication.ForgetPositions(posDir, lay.Streams, streams)
	if err != nil {
		return nil, err
	}
	rebuilt := map[int]*rebuild{}
	for i, st := range streams {
		rebuilt[st] = &rebuild{recorded: old[i]}
		rebuilt[st].end.Store(endUnknown)
	}
	for _, d := range bad {
		aside := "." + d.name + ".damaged-" + strconv.FormatInt(time.Now().UnixNano(), 10)
		if err := os.Rename(filepath.Join(s.cfg.Dir, d.name), filepath.Join(s.cfg.Dir, aside)); err != nil {
			return nil, fmt.Errorf("move the damaged %s aside: %w", d.name, err)
		}
		var names []string
		for _, st := range d.streams {
			names = append(names, fmt.Sprintf("%s (applied up to seq %d here)", lay.StreamName(st), rebuilt[st].recorded))
		}
		s.cfg.Log.Printf("replication: %s is damaged: %v: moved aside to %s; %s applied again from its start, or copied from a peer, and this node serves no read of its slots until then",
			filepath.Join(s.cfg.Dir, d.name), d.err, aside, strings.Join(names, ", "))
	}
	return rebuilt, nil
}

// rebuildEnds sets the end of each rebuild of r to the larger of its
// recorded position and its stream's last sequence now (the log just
// opened), asking again every second while the stream's leader does not
// answer, until ctx ends.
func (r *jsRepl) rebuildEnds(ctx context.Context, l *replication.Log) {
	for st, rb := range r.rebuilt {
		for rb.end.Load() == endUnknown && ctx.Err() == nil {
			last, err := l.LastSeq(ctx, st)
			if err != nil {
				r.s.cfg.Log.Printf("replication: the rebuild of %s waits for its last sequence: %v", r.layout.StreamName(st), err)
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
				continue
			}
			rb.end.Store(max(rb.recorded, last))
			r.s.cfg.Log.Printf("replication: %s is rebuilt here once applied up to seq %d", r.layout.StreamName(st), max(rb.recorded, last))
		}
	}
}

// msgRebuilding answers a read of a slot this node owns while it
// rebuilds the slot's stream (rebuildDamaged).
const msgRebuilding = "TRYAGAIN this node is rebuilding the slot's keys from the replication log (a damaged file was moved aside)"

// rebuilding returns the reply to a read of slot while this node
// applies the slot's stream again after moving a damaged file aside
// and has not yet reached the rebuild's end: MOVED to the slot's owner,
// or msgRebuilding when that is this node; else "".
func (s *Server) rebuilding(cs *clusterState, cmd *command, slot int) string {
	r := s.repl
	if r == nil || len(r.rebuilt) == 0 || slot < 0 || !cmd.readOnly() {
		return ""
	}
	st := r.layout.StreamOf(slot)
	rb, ok := r.rebuilt[st]
	if l := r.log(); !ok || l != nil && rb.end.Load() != endUnknown && l.Applied(st) >= rb.end.Load() {
		return ""
	}
	if o := cs.m.Owner(slot); o != nil && o != cs.me {
		return "MOVED " + strconv.Itoa(slot) + " " + o.Endpoint()
	}
	return msgRebuilding
}
