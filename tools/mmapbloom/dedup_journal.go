package main

import (
	binenc "encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// dedup's journal of claims (docs/dedup.md). dedup claims a batch's new
// keys (TestAndAddBatch: of several processes reading the same line at
// once, one is told new) before it prints them, so a claimed line must
// be printed by someone even if this process dies first. Each dedup
// process keeps a journal, FILE.dedup/PID-TIME.journal, locked (flock)
// for its life, holding the batch in flight only:
//
//  1. intent: the lines about to be claimed, written before the claim;
//  2. claimed: which of them this process claimed, after the claim;
//  3. written: how many claimed lines the output took, after an output
//     error only.
//
// After the output took every claimed line the journal is emptied. A
// dedup starting on FILE takes over each journal it can lock (its
// process is gone: kill -9, a crash, an output error) and prints its
// pending lines: the claimed lines not written, or every intent line
// when the claimed record is missing or torn (the claim's results were
// lost with the process). A torn intent means no claim happened.

// journalDir is the directory of the journals of dedup on file.
func journalDir(file string) string { return strings.TrimRight(file, "/") + ".dedup" }

// Record kinds of a journal, each followed by its fields and a CRC-32C
// of the record's bytes before it.
const (
	recIntent  = 'I' // count u32, payload length u32, payload: per line uvarint key length, flags (lineCR, lineNUL), key
	recClaimed = 'C' // count u32, bitmap of count bits: line i was claimed
	recWritten = 'W' // lines u32: claimed lines the output took
)

// The flags of a line in an intent record.
const (
	lineCR  = 1 // a CR followed the key
	lineNUL = 2 // the line ends in NUL, not LF
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// errJournal is wrapped by the errors of dedup's journal.
var errJournal = errors.New("dedup journal")

// journal is this process's journal of claims.
type journal struct {
	f    *os.File
	path string // its name now
	sync bool   // fsync the intent before the claim (--sync)
	end  int64  // bytes written since the journal was last emptied
	rec  []byte
}

// pendingLine is a line of a journal: a key, whether a CR followed it,
// and its separator.
type pendingLine struct {
	key []byte
	cr  bool
	sep byte
}

// openJournal creates this process's journal in file's journal
// directory and reads the pending lines of the journals no process holds
// (their files are removed by adopted, once this process's journal
// holds the lines).
func openJournal(file string, sync bool) (*journal, *adoption, error) {
	dir := journalDir(file)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", errJournal, err)
	}
	// Created under a name others skip, locked, then renamed: a journal
	// under its final name is always locked by a live process or dead.
	tmp := filepath.Join(dir, fmt.Sprintf("%d-%d.tmp", os.Getpid(), time.Now().UnixNano()))
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", errJournal, err)
	}
	j := &journal{f: f, path: tmp, sync: sync}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return nil, nil, errors.Join(fmt.Errorf("%w: lock %s: %w", errJournal, tmp, err), j.drop())
	}
	name := strings.TrimSuffix(tmp, ".tmp") + ".journal"
	if err := os.Rename(tmp, name); err != nil {
		return nil, nil, errors.Join(fmt.Errorf("%w: %w", errJournal, err), j.drop())
	}
	j.path = name
	a, err := adopt(dir)
	if err != nil {
		return nil, nil, errors.Join(err, j.drop())
	}
	return j, a, nil
}

// adoption holds the journals of dead processes, locked, and their
// pending lines.
type adoption struct {
	files []*os.File
	lines []pendingLine
}

// adopt locks every journal of dir no live process holds and reads its
// pending lines. A temporary file is left alone: its creator may be
// between the create and the lock (one that died there left it empty).
func adopt(dir string) (*adoption, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errJournal, err)
	}
	a := &adoption{}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".journal") {
			continue
		}
		name := filepath.Join(dir, e.Name())
		f, err := lockDead(name)
		if err != nil {
			return nil, errors.Join(err, a.release(false))
		}
		if f == nil {
			continue
		}
		lines, err := readJournal(f)
		a.files, a.lines = append(a.files, f), append(a.lines, lines...)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("%w: %s: %w", errJournal, name, err), a.release(false))
		}
	}
	return a, nil
}

// lockDead opens and locks the journal at name when no process holds it
// and it is still linked (another adopter removes a journal before it
// unlocks it); nil when it is held or gone.
func lockDead(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errJournal, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return nil, errors.Join(f.Close(), ignoreWouldBlock(err))
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil || st.Nlink == 0 {
		return nil, errors.Join(f.Close(), err)
	}
	return f, nil
}

// ignoreWouldBlock is nil for EWOULDBLOCK (a live process holds the
// lock), else err.
func ignoreWouldBlock(err error) error {
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil
	}
	return fmt.Errorf("%w: lock: %w", errJournal, err)
}

// release removes the adopted journals (remove true: their lines are in
// this process's journal now) and unlocks them.
func (a *adoption) release(remove bool) error {
	var errs []error
	for _, f := range a.files {
		if remove {
			errs = append(errs, os.Remove(f.Name()))
		}
		errs = append(errs, f.Close())
	}
	a.files = nil
	return errors.Join(errs...)
}

// readJournal returns the pending lines of a journal's bytes.
func readJournal(f *os.File) ([]pendingLine, error) {
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	lines, b := parseIntent(b)
	claimed := lines
	if bits, rest, ok := parseRecord(b, recClaimed, len(lines)); ok {
		claimed, b = nil, rest
		for i, l := range lines {
			if bits[i/8]&(1<<(i%8)) != 0 {
				claimed = append(claimed, l)
			}
		}
	}
	if n, _, ok := parseRecord(b, recWritten, 0); ok {
		claimed = claimed[min(int(binenc.LittleEndian.Uint32(n)), len(claimed)):]
	}
	return claimed, nil
}

// parseIntent decodes an intent record at the start of b: its lines and
// the bytes after it; none when it is missing or torn.
func parseIntent(b []byte) ([]pendingLine, []byte) {
	if len(b) < 9 || b[0] != recIntent {
		return nil, nil
	}
	count, size := binenc.LittleEndian.Uint32(b[1:]), binenc.LittleEndian.Uint32(b[5:])
	end := 9 + int64(size)
	if int64(len(b)) < end+4 || crc32.Checksum(b[:end], crcTable) != binenc.LittleEndian.Uint32(b[end:]) {
		return nil, nil
	}
	lines := make([]pendingLine, 0, min(count, batchSize))
	for p := b[9:end]; len(p) > 0; {
		n, w := binenc.Uvarint(p)
		if w <= 0 || uint64(len(p)-w) < 1+n {
			return nil, nil
		}
		l := pendingLine{key: p[w+1 : w+1+int(n)], cr: p[w]&lineCR != 0, sep: '\n'}
		if p[w]&lineNUL != 0 {
			l.sep = 0
		}
		lines = append(lines, l)
		p = p[w+1+int(n):]
	}
	return lines, b[end+4:]
}

// appendTo appends the line as it was read, key, CR and separator, to
// dst.
func (l pendingLine) appendTo(dst []byte) []byte {
	dst = append(dst, l.key...)
	if l.cr {
		dst = append(dst, '\r')
	}
	return append(dst, l.sep)
}

// parseRecord decodes a claimed record of count lines (its bitmap) or a
// written record (its 4 bytes) at the start of b, and the bytes after it.
func parseRecord(b []byte, kind byte, count int) (body, rest []byte, ok bool) {
	size := 4
	if kind == recClaimed {
		size = 4 + (count+7)/8
	}
	if len(b) < 1+size+4 || b[0] != kind || crc32.Checksum(b[:1+size], crcTable) != binenc.LittleEndian.Uint32(b[1+size:]) {
		return nil, nil, false
	}
	if kind == recClaimed {
		return b[5 : 1+size], b[1+size+4:], int(binenc.LittleEndian.Uint32(b[1:])) == count
	}
	return b[1 : 1+size], b[1+size+4:], true
}

// intent records lines as about to be claimed, and with --sync makes
// it durable, so that no claim lands on the disk before the journal of
// it. Nothing is written for no lines.
func (j *journal) intent(lines []pendingLine) error {
	if len(lines) == 0 {
		return nil
	}
	r := append(j.rec[:0], recIntent, 0, 0, 0, 0, 0, 0, 0, 0)
	binenc.LittleEndian.PutUint32(r[1:], uint32(len(lines)))
	for _, l := range lines {
		r = binenc.AppendUvarint(r, uint64(len(l.key)))
		flags := byte(0)
		if l.cr {
			flags |= lineCR
		}
		if l.sep == 0 {
			flags |= lineNUL
		}
		r = append(append(r, flags), l.key...)
	}
	binenc.LittleEndian.PutUint32(r[5:], uint32(len(r)-9))
	j.rec = r
	if err := j.append(); err != nil {
		return err
	}
	if j.sync {
		if err := j.f.Sync(); err != nil {
			return fmt.Errorf("%w: fsync: %w", errJournal, err)
		}
	}
	return nil
}

// claimed records which lines of the intent this process claimed.
func (j *journal) claimed(new []bool) error {
	r := append(j.rec[:0], recClaimed, 0, 0, 0, 0)
	binenc.LittleEndian.PutUint32(r[1:], uint32(len(new)))
	r = append(r, make([]byte, (len(new)+7)/8)...)
	for i, ok := range new {
		if ok {
			r[5+i/8] |= 1 << (i % 8)
		}
	}
	j.rec = r
	return j.append()
}

// written records that the output took the first n claimed lines.
func (j *journal) written(n int) error {
	j.rec = binenc.LittleEndian.AppendUint32(append(j.rec[:0], recWritten), uint32(n))
	return j.append()
}

// append writes j.rec and its CRC after the records since the journal
// was last emptied.
func (j *journal) append() error {
	j.rec = binenc.LittleEndian.AppendUint32(j.rec, crc32.Checksum(j.rec, crcTable))
	n, err := j.f.WriteAt(j.rec, j.end)
	j.end += int64(n)
	if err != nil {
		return fmt.Errorf("%w: %w", errJournal, err)
	}
	return nil
}

// done empties the journal: the output took every claimed line.
func (j *journal) done() error {
	if j.end == 0 {
		return nil
	}
	if err := j.f.Truncate(0); err != nil {
		return fmt.Errorf("%w: %w", errJournal, err)
	}
	j.end = 0
	return nil
}

// close removes the journal when it holds nothing pending, and unlocks
// it; a journal left holds lines the next dedup on the file prints.
func (j *journal) close() error {
	if j.end > 0 {
		return j.f.Close()
	}
	return j.drop()
}

// drop removes and closes the journal.
func (j *journal) drop() error {
	return errors.Join(os.Remove(j.path), j.f.Close())
}
