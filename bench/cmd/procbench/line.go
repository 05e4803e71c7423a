package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// metric is one value of a benchmark line, with its unit.
type metric struct {
	value float64
	unit  string
}

// printLine writes a line in the format of go test -bench, which
// cmd/report reads: name, count, then value and unit pairs.
func printLine(out io.Writer, name string, n int, ms ...metric) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\t%d", name, n)
	for _, m := range ms {
		fmt.Fprintf(&b, "\t%s %s", formatValue(m.value), m.unit)
	}
	_, err := fmt.Fprintln(out, b.String())
	return err
}

// median returns the median of xs (the mean of the middle two for an
// even count).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// formatValue writes v whole when it is large, else with 4 significant
// digits, as go test -bench does.
func formatValue(v float64) string {
	if math.Abs(v) >= 1000 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.4g", v)
}
