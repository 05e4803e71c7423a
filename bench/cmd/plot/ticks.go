package main

import (
	"fmt"
	"strconv"

	"gonum.org/v1/plot"
)

// byteTicks marks a log-scale byte axis at powers of two (of four when
// the range is wide), labelled in KiB, MiB or GiB.
type byteTicks struct{}

// Ticks returns the marks between lo and hi.
func (byteTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 2.0
	if hi/lo > 256 {
		step = 4
	}
	var ts []plot.Tick
	for v := 1024.0; v <= hi; v *= step {
		if v >= lo {
			ts = append(ts, plot.Tick{Value: v, Label: byteLabel(v)})
		}
	}
	return ts
}

// byteLabel writes a power of two of bytes, at least 1 KiB.
func byteLabel(v float64) string {
	switch {
	case v >= 1<<30:
		return fmt.Sprintf("%g GiB", v/(1<<30))
	case v >= 1<<20:
		return fmt.Sprintf("%g MiB", v/(1<<20))
	}
	return fmt.Sprintf("%g KiB", v/(1<<10))
}

// nsTicks marks the time axis where plot.DefaultTicks does, with labels
// written plainly (250, not 250.00).
type nsTicks struct{}

// Ticks returns the marks between lo and hi.
func (nsTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', -1, 64)
		}
	}
	return ts
}
