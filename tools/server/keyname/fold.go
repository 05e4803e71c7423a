package keyname

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// Names of folded keys' buckets. Under folding (serve --fold-hashtags) a
// key prefix{tag}suffix with a non-empty hash tag (Redis's rule,
// cluster.HashTag) is kept in the filter of the bucket
// b = slot / (16384/B) of the name prefix{}suffix, named
// Stem(prefix{}suffix) + "@b" + b on disk (seen:{example.com} with B = 64:
// seen:%7B%7D@b33.bfset). No key's stem holds a raw '@', so no key names
// a bucket's file.

// bucketMark separates a folded name's stem from its bucket number.
const bucketMark = "@b"

// Folded is where a folded key lives.
type Folded struct {
	Stem   string // file-name stem of its bucket's filter
	Bucket int    // slot / (cluster.Slots / buckets)
	Tag    []byte // the key's hash tag (a sub-slice of the key)
}

// Fold maps key under folding into buckets buckets (a power of two
// dividing cluster.Slots): ok is false for a key without a non-empty
// hash tag, which is not folded. The error is ErrBadKey when the name
// prefix{}suffix is too long for a file name (the tag may be of any
// length: it is not part of the name).
func Fold(key []byte, buckets int) (f Folded, ok bool, err error) {
	tag := cluster.HashTag(key)
	if len(tag) == len(key) { // a tag lies between braces: shorter than the key
		return Folded{}, false, nil
	}
	open := bytes.IndexByte(key, '{')
	name := make([]byte, 0, len(key)-len(tag))
	name = append(append(name, key[:open+1]...), key[open+1+len(tag):]...)
	bucket := cluster.KeySlot(key) / (cluster.Slots / buckets)
	stem, err := foldedStem(name, bucket)
	if err != nil {
		return Folded{}, true, err
	}
	return Folded{Stem: stem, Bucket: bucket, Tag: tag}, true, nil
}

// foldedStem is the stem of bucket's filter of the name prefix{}suffix.
func foldedStem(name []byte, bucket int) (string, error) {
	stem, err := Stem(name)
	if err != nil {
		return "", err
	}
	stem += bucketMark + strconv.Itoa(bucket)
	if len(stem) > MaxStemBytes {
		return "", fmt.Errorf("%d bytes once escaped with its bucket, at most %d: %w", len(stem), MaxStemBytes, ErrBadKey)
	}
	return stem, nil
}

// FoldedOf is the inverse of the folded naming rule: the name
// prefix{}suffix and bucket a directory entry holds the filter of, and
// whether it is a set, or ok = false for a name no folded key maps to.
func FoldedOf(entry string) (name string, bucket int, set bool, ok bool) {
	stem, set, ok := Split(entry)
	at := strings.LastIndex(stem, bucketMark)
	if !ok || at < 0 {
		return "", 0, false, false
	}
	digits := stem[at+len(bucketMark):]
	bucket, err := strconv.Atoi(digits)
	if err != nil || bucket < 0 || bucket >= cluster.Slots || strconv.Itoa(bucket) != digits {
		return "", 0, false, false
	}
	name, ok = unescape(stem[:at])
	open := strings.IndexByte(name, '{')
	if !ok || open < 0 || open+1 == len(name) || name[open+1] != '}' {
		return "", 0, false, false
	}
	if again, err := foldedStem([]byte(name), bucket); err != nil || again != stem {
		return "", 0, false, false
	}
	return name, bucket, set, true
}
