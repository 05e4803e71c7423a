package main

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// keyCount is the value of -n: an unsigned integer, written plainly
// (1000000), with digit separators (1_000_000, 1,000,000) or as a whole
// number in e notation (1e6).
type keyCount uint64

// UnmarshalText parses the value of -n.
func (c *keyCount) UnmarshalText(text []byte) error {
	s := strings.NewReplacer("_", "", ",", "").Replace(string(text))
	if v, err := strconv.ParseUint(s, 10, 64); err == nil {
		*c = keyCount(v)
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || strings.HasPrefix(s, "-") || v != math.Trunc(v) || v >= math.MaxUint64 || !strings.ContainsAny(s, "eE") {
		return fmt.Errorf("%q is not an unsigned integer (write 1000000, 1_000_000, 1,000,000 or 1e6)", text)
	}
	*c = keyCount(v)
	return nil
}

// windowLength is the value of --window: a Go duration (24h, 90m), which
// may start with a number of days (1d, 7d, 1d12h): days are the unit of
// recrawling.
type windowLength time.Duration

// days is a leading count of days in a --window value.
var days = regexp.MustCompile(`^(\d+)d`)

// UnmarshalText parses the value of --window.
func (w *windowLength) UnmarshalText(text []byte) error {
	s := string(text)
	var d time.Duration
	if m := days.FindStringSubmatch(s); m != nil {
		n, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil || n > int64(math.MaxInt64/(24*time.Hour)) {
			return fmt.Errorf("%q: too many days", text)
		}
		d, s = time.Duration(n)*24*time.Hour, s[len(m[0]):]
	}
	if s != "" {
		rest, err := time.ParseDuration(s)
		if err != nil || rest > math.MaxInt64-d {
			return fmt.Errorf("%q is not a duration (write 24h, 90m, 1d or 7d)", text)
		}
		d += rest
	}
	*w = windowLength(d)
	return nil
}

// String writes the length as a Go duration.
func (w windowLength) String() string { return time.Duration(w).String() }
