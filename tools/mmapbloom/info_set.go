package main

import (
	"fmt"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// setReport is the output of info for a filter set: the MANIFEST's
// fields, the sums over the live layers, and each layer's infoReport. The
// JSON names are stable; README.md documents each field.
type setReport struct {
	Kind       string        `json:"kind"`
	Generation uint64        `json:"generation"`
	N          uint64        `json:"n"`
	P          float64       `json:"p"`
	Expansion  uint32        `json:"expansion"`
	Tightening float64       `json:"tightening"`
	Window     string        `json:"window"`
	Keep       int           `json:"keep"`
	Refresh    bool          `json:"refresh"`
	Sealed     bool          `json:"sealed"`
	Capacity   uint64        `json:"capacity"`
	Count      uint64        `json:"count"`
	Layers     []layerReport `json:"layers"`
}

// layerReport is one layer of a setReport.
type layerReport struct {
	File        string `json:"file"`
	WindowStart string `json:"window_start,omitempty"`
	WindowEnd   string `json:"window_end,omitempty"`
	infoReport
}

// runSet prints the report of the set at c.File.
func (c *infoCmd) runSet(e *env) error {
	r, err := reportSet(c.File, c.Stats)
	if err != nil {
		return err
	}
	return c.print(e, r)
}

// reportSet opens the set read-only and gathers its report, with stats
// a pass over each layer's bits.
func reportSet(dir string, stats bool) (setReport, error) {
	s, err := mmapbloom.OpenSet(dir, &mmapbloom.OpenOptions{ReadOnly: true, Now: clock})
	if err != nil {
		return setReport{}, err
	}
	defer s.Close()
	in, err := s.Info()
	if err != nil {
		return setReport{}, err
	}
	r := setReport{
		Kind: in.Kind, Generation: in.Generation, N: in.N, P: in.P, Expansion: in.Expansion,
		Tightening: in.Tightening, Keep: in.Keep, Refresh: in.Refresh, Sealed: in.Sealed,
		Layers: []layerReport{}, // [] in JSON when every window expired, not null
	}
	if in.Window > 0 {
		r.Window = in.Window.String()
	}
	for _, l := range in.Layers {
		lr, err := reportLayer(dir, l, stats)
		if err != nil {
			return setReport{}, err
		}
		r.Capacity += lr.N
		r.Count += lr.Count
		r.Layers = append(r.Layers, lr)
	}
	return r, nil
}

// reportLayer gathers the report of one layer.
func reportLayer(dir string, l mmapbloom.LayerInfo, stats bool) (layerReport, error) {
	ir, err := report(filepath.Join(dir, l.File), stats)
	lr := layerReport{File: l.File, infoReport: ir}
	if !l.WindowEnd.IsZero() {
		// RFC3339Nano: windows start at the set's creation time, not on a
		// whole second, and RFC3339 cut them to the second before.
		lr.WindowStart, lr.WindowEnd = l.WindowStart.UTC().Format(time.RFC3339Nano), l.WindowEnd.UTC().Format(time.RFC3339Nano)
	}
	return lr, err
}

// writeText prints the set's fields, then each layer's report.
func (r setReport) writeText(e *env) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 1, ' ', 0)
	fmt.Fprintf(tw, "kind:\t%s\ngeneration:\t%d\nn:\t%d\np:\t%g\n", r.Kind, r.Generation, r.N, r.P)
	if r.Kind == "windowed" {
		fmt.Fprintf(tw, "window:\t%s\nkeep:\t%d\nrefresh:\t%v\n", r.Window, r.Keep, r.Refresh)
	}
	if r.Expansion > 0 { // a scalable set, or a windowed one whose windows grow
		fmt.Fprintf(tw, "expansion:\t%d\ntightening:\t%g\n", r.Expansion, r.Tightening)
	}
	fmt.Fprintf(tw, "sealed:\t%v\nlayers:\t%d\ncapacity:\t%d\ncount:\t%d\n", r.Sealed, len(r.Layers), r.Capacity, r.Count)
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, l := range r.Layers {
		fmt.Fprintf(e.stdout, "\nlayer %s", l.File)
		if l.WindowEnd != "" {
			fmt.Fprintf(e.stdout, " (window %s to %s)", l.WindowStart, l.WindowEnd)
		}
		fmt.Fprintln(e.stdout, ":")
		if err := l.infoReport.writeText(e); err != nil {
			return err
		}
	}
	return nil
}
