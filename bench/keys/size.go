package keys

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// DefaultN is the number of keys of a benchmark run when BENCH_N is unset:
// small, so that a plain run is quick.
const DefaultN = 1_000_000

// ParseN reads a key count written as a number with an optional suffix k,
// M or G (powers of 1000): "50M", "1500k", "2000000".
func ParseN(s string) (int, error) {
	mult := 1
	switch {
	case strings.HasSuffix(s, "k"), strings.HasSuffix(s, "K"):
		mult = 1_000
	case strings.HasSuffix(s, "M"):
		mult = 1_000_000
	case strings.HasSuffix(s, "G"):
		mult = 1_000_000_000
	}
	digitsPart := s
	if mult != 1 {
		digitsPart = s[:len(s)-1]
	}
	v, err := strconv.Atoi(digitsPart)
	if err != nil || v < 1 {
		return 0, fmt.Errorf("keys: bad key count %q (want e.g. 1000000, 10M, 500k)", s)
	}
	return v * mult, nil
}

// FormatN writes n the way benchmark names show it: with the largest
// suffix that divides it exactly (10M, 500k), else as a plain number.
func FormatN(n int) string {
	switch {
	case n%1_000_000_000 == 0:
		return strconv.Itoa(n/1_000_000_000) + "G"
	case n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + "M"
	case n%1_000 == 0:
		return strconv.Itoa(n/1_000) + "k"
	}
	return strconv.Itoa(n)
}

// EnvN returns the key count set by the environment variable name
// (see ParseN), or DefaultN when it is unset or empty.
func EnvN(name string) (int, error) {
	s := os.Getenv(name)
	if s == "" {
		return DefaultN, nil
	}
	return ParseN(s)
}
