// Package keyname is the server's rule from keys to file names: a key
// names the file DIR/STEM.bloom (a fixed filter) or the directory
// DIR/STEM.bfset (a scaling or windowed set), and under folding a
// hash-tagged key names its bucket's filter (Fold). Pure functions of
// their arguments: no file is touched.
package keyname

import (
	"errors"
	"fmt"
	"strings"
)

// Key to file name rule. A key names the file DIR/STEM.bloom (a fixed
// filter) or the directory DIR/STEM.bfset (a scaling set), where STEM is
// the key with every byte outside [A-Za-z0-9._:-] written as %XX (two
// upper-case hex digits), and a leading '.' written as %2E so that no
// key names a hidden file (the library's temporary files are hidden).
// The empty key is the stem "%". A stem never holds '/' or NUL, so no
// key can name a path outside DIR.
const (
	// MaxKeyBytes is the longest key accepted, in bytes.
	MaxKeyBytes = 200
	// MaxStemBytes is the longest escaped stem: with the suffix and the
	// library's temporary-name decoration (".STEM.bloom.tmp" and up to 10
	// digits) it stays under the 255-byte NAME_MAX of Linux file systems.
	MaxStemBytes = 230

	// FileSuffix ends the name of a fixed filter's file.
	FileSuffix = ".bloom"
	// SetSuffix ends the name of a set's directory.
	SetSuffix = ".bfset"
)

// ErrBadKey is returned for a key that cannot name a file: longer than
// MaxKeyBytes, or longer than MaxStemBytes once escaped.
var ErrBadKey = errors.New("key too long")

const hexDigits = "0123456789ABCDEF"

// plain reports whether b stands for itself in a stem.
func plain(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' ||
		b == '.' || b == '_' || b == ':' || b == '-'
}

// Stem returns the escaped file-name stem of key, or ErrBadKey when the
// key or its stem is too long.
func Stem(key []byte) (string, error) {
	if len(key) > MaxKeyBytes {
		return "", fmt.Errorf("%d bytes, at most %d: %w", len(key), MaxKeyBytes, ErrBadKey)
	}
	if len(key) == 0 {
		return "%", nil
	}
	var sb strings.Builder
	sb.Grow(len(key))
	for i, b := range key {
		if plain(b) && !(i == 0 && b == '.') {
			sb.WriteByte(b)
			continue
		}
		sb.WriteByte('%')
		sb.WriteByte(hexDigits[b>>4])
		sb.WriteByte(hexDigits[b&15])
	}
	if sb.Len() > MaxStemBytes {
		return "", fmt.Errorf("%d bytes once escaped, at most %d: %w", sb.Len(), MaxStemBytes, ErrBadKey)
	}
	return sb.String(), nil
}

// KeyOf is the inverse of the key-to-name rule: the key
// a directory entry stands for, and whether it is a set, or ok = false
// for a name no key maps to (other files, temporary files).
func KeyOf(name string) (key string, set bool, ok bool) {
	stem, set, ok := Split(name)
	if !ok {
		return "", false, false
	}
	key, ok = unescape(stem)
	return key, set, ok
}

// Split cuts a directory entry's name into its stem and whether it is a
// set, or ok = false when it has neither suffix.
func Split(name string) (stem string, set bool, ok bool) {
	if stem, ok = strings.CutSuffix(name, FileSuffix); ok {
		return stem, false, true
	}
	stem, ok = strings.CutSuffix(name, SetSuffix)
	return stem, ok, ok
}

// unescape decodes a stem, accepting only the exact form Stem writes.
func unescape(stem string) (string, bool) {
	if stem == "%" {
		return "", true
	}
	if stem == "" {
		return "", false
	}
	out := make([]byte, 0, len(stem))
	for i := 0; i < len(stem); i++ {
		b := stem[i]
		if b != '%' {
			if !plain(b) || (i == 0 && b == '.') {
				return "", false
			}
			out = append(out, b)
			continue
		}
		if i+2 >= len(stem) {
			return "", false
		}
		hi, lo := strings.IndexByte(hexDigits, stem[i+1]), strings.IndexByte(hexDigits, stem[i+2])
		if hi < 0 || lo < 0 {
			return "", false
		}
		d := byte(hi<<4 | lo)
		if plain(d) && !(len(out) == 0 && d == '.') {
			return "", false // not the form Stem writes
		}
		out = append(out, d)
		i += 2
	}
	if len(out) > MaxKeyBytes {
		return "", false
	}
	return string(out), true
}
