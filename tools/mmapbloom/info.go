package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"strings"
	"text/tabwriter"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// infoCmd prints a filter's header fields and, with --stats, the
// statistics of its bit array.
type infoCmd struct {
	File  string `arg:"" help:"Filter file or set (opened read-only)."`
	JSON  bool   `name:"json" help:"Print one JSON object (fields in README.md)."`
	Stats bool   `name:"stats" help:"Also count the set bits and estimate from them (a pass over the whole bit array, of every layer of a set: reads the whole file when it is not in memory)."`
}

// infoReport is the output of info. The JSON names are stable; README.md
// documents each field. The text output prints the same fields, labelled
// by their text tag where it says more than the JSON name.
type infoReport struct {
	FormatVersion         string  `json:"format_version"`
	Layout                string  `json:"layout"`
	Scheme                string  `json:"scheme"`
	Flags                 uint8   `json:"flags"`
	Sealed                bool    `json:"sealed"`
	K                     uint32  `json:"k"`
	Count                 uint64  `json:"count"`
	P                     float64 `json:"p" text:"p (target fpr at n)"`
	M                     uint64  `json:"m"`
	N                     uint64  `json:"n"`
	Seed                  uint64  `json:"seed"`
	ByteSize              uint64  `json:"byte_size"`
	FileSize              int64   `json:"file_size"`
	DataCRC               uint32  `json:"data_crc"`
	TheoreticalFPR        float64 `json:"theoretical_fpr" text:"theoretical fpr (at n keys)"`
	TheoreticalFPRAtCount float64 `json:"theoretical_fpr_at_count" text:"theoretical fpr at count (expected now)"`
	OverCapacity          bool    `json:"over_capacity"`
	*scanReport                   // with --stats only
}

// scanReport is the part of info that needs a pass over the bit array.
type scanReport struct {
	SetBits              uint64   `json:"set_bits"`
	FillRatio            float64  `json:"fill_ratio"`
	EstimatedCardinality *float64 `json:"estimated_cardinality"` // nil (null) for +Inf
	EstimatedFPR         float64  `json:"estimated_fpr" text:"estimated fpr (from the fill now)"`
}

// Run reads the filter (or set) and prints the report.
func (c *infoCmd) Run(e *env) error {
	if isSet(c.File) {
		return c.runSet(e)
	}
	r, err := report(c.File, c.Stats)
	if err != nil {
		return err
	}
	return c.print(e, r)
}

// print writes a report as JSON (--json) or as text.
func (c *infoCmd) print(e *env, r interface{ writeText(*env) error }) error {
	if c.JSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return r.writeText(e)
}

// report opens the filter read-only and gathers its report from the
// header, and with stats from a pass over the bit array.
func report(path string, stats bool) (infoReport, error) {
	f, err := mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
	if err != nil {
		return infoReport{}, err
	}
	defer f.Close()
	count, err := f.Count()
	if err != nil {
		return infoReport{}, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return infoReport{}, err
	}
	h := f.Header()
	r := infoReport{
		FormatVersion: h.Version.String(), Layout: h.Layout.String(), Scheme: h.Scheme.String(),
		Flags: h.Flags, Sealed: h.Sealed(), K: h.K, Count: count, P: h.P, M: h.M, N: h.N,
		Seed: h.Seed, ByteSize: h.ByteSize, FileSize: fi.Size(), DataCRC: h.DataCRC,
		TheoreticalFPR: f.ExpectedFPR(h.N), TheoreticalFPRAtCount: f.ExpectedFPR(count),
		OverCapacity: h.N > 0 && count > h.N,
	}
	if stats {
		st, err := f.Stats()
		if err != nil {
			return infoReport{}, err
		}
		r.scanReport = &scanReport{SetBits: st.SetBits, FillRatio: st.FillRatio, EstimatedFPR: st.EstimatedFPR}
		if !math.IsInf(st.EstimatedCardinality, 0) {
			r.EstimatedCardinality = &st.EstimatedCardinality
		}
	}
	return r, nil
}

// writeText prints one aligned "label: value" line per field, labelled by
// its text tag or its JSON name with spaces for underscores.
func (r infoReport) writeText(e *env) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 1, ' ', 0)
	writeFields(tw, reflect.ValueOf(r))
	return tw.Flush()
}

// writeFields prints the fields of the struct v, and of the structs its
// non-nil embedded pointers point to.
func writeFields(w io.Writer, v reflect.Value) {
	for i := range v.NumField() {
		field, value := v.Type().Field(i), v.Field(i)
		if field.Anonymous {
			if !value.IsNil() {
				writeFields(w, value.Elem())
			}
			continue
		}
		label := field.Tag.Get("text")
		if label == "" {
			label = strings.ReplaceAll(field.Tag.Get("json"), "_", " ")
		}
		fmt.Fprintf(w, "%s:\t%s\n", label, textValue(value))
	}
}

// textValue formats one field of the report for the text output.
func textValue(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "+Inf"
		}
		v = v.Elem()
	}
	return fmt.Sprint(v.Interface())
}
