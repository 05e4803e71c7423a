package keys

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// PhishingFile is the name of the real URL list in the shared data folder
// (802,044 URLs, one per line, no duplicates; see its README).
const PhishingFile = "phishing-urls.txt.gz"

// PresentShare is the share of a real list, from its start, that the
// benchmarks add; the rest is the absent set.
const PresentShare = 0.9

// readLines reads a gzip-compressed file of one key per line (LF, an
// optional CR stripped, empty lines skipped) into one Set.
func readLines(path string) (*Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("keys: %s: %w", path, err)
	}
	text, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("keys: %s: %w", path, err)
	}
	return splitLines(text), nil
}

// splitLines packs the non-empty lines of text back to back at the start
// of text and returns them as a Set.
func splitLines(text []byte) *Set {
	var ends []int
	w := 0
	for line := range bytes.Lines(text) {
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) == 0 {
			continue
		}
		w += copy(text[w:], line)
		ends = append(ends, w)
	}
	return newSet(text[:w:w], ends)
}

// Phishing reads the real URL list from dir and splits it: the first
// PresentShare of it is present, the rest absent. The error wraps
// fs.ErrNotExist when the file is not there.
func Phishing(dir string) (present, absent *Set, err error) {
	all, err := readLines(filepath.Join(dir, PhishingFile))
	if err != nil {
		return nil, nil, err
	}
	cut := int(float64(all.Len()) * PresentShare)
	return all.slice(0, cut), all.slice(cut, all.Len()), nil
}

// slice returns the keys [from, to) of s as a Set sharing its buffer.
func (s *Set) slice(from, to int) *Set {
	start := 0
	for _, k := range s.keys[:from] {
		start += len(k)
	}
	end := start
	for _, k := range s.keys[from:to] {
		end += len(k)
	}
	return &Set{data: s.data[start:end:end], keys: s.keys[from:to]}
}
