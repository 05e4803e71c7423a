package main

import (
	"fmt"
	"strings"
)

// ns writes a time in nanoseconds to about 3 significant digits.
func ns(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// ms writes a time in nanoseconds as milliseconds.
func ms(v float64) string {
	if v >= 100e6 {
		return fmt.Sprintf("%.0f ms", v/1e6)
	}
	return fmt.Sprintf("%.3g ms", v/1e6)
}

// mib writes a byte count in MiB.
func mib(v float64) string { return fmt.Sprintf("%.1f MiB", v/(1<<20)) }

// rate writes a false-positive rate.
func rate(v float64) string { return fmt.Sprintf("%.2e", v) }

// table writes a markdown table.
func table(b *strings.Builder, header []string, rows [][]string) {
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	b.WriteString(strings.Repeat("---|", len(header)) + "\n")
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	b.WriteString("\n")
}
