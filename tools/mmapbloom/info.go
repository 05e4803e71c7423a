package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"text/tabwriter"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// infoCmd prints a filter's header and bit-array statistics.
type infoCmd struct {
	File string `arg:"" help:"Filter file or set (opened read-only)."`
	JSON bool   `name:"json" help:"Print one JSON object (fields in README.md)."`
}

// infoReport is the output of info. The JSON names are stable; README.md
// documents each field. The text output prints the same fields.
type infoReport struct {
	FormatVersion        string   `json:"format_version"`
	Layout               string   `json:"layout"`
	Scheme               string   `json:"scheme"`
	Flags                uint8    `json:"flags"`
	Sealed               bool     `json:"sealed"`
	K                    uint32   `json:"k"`
	Count                uint64   `json:"count"`
	P                    float64  `json:"p"`
	M                    uint64   `json:"m"`
	N                    uint64   `json:"n"`
	Seed                 uint64   `json:"seed"`
	ByteSize             uint64   `json:"byte_size"`
	FileSize             int64    `json:"file_size"`
	DataCRC              uint32   `json:"data_crc"`
	SetBits              uint64   `json:"set_bits"`
	FillRatio            float64  `json:"fill_ratio"`
	EstimatedCardinality *float64 `json:"estimated_cardinality"` // nil (null) for +Inf
	EstimatedFPR         float64  `json:"estimated_fpr"`
	TheoreticalFPR       float64  `json:"theoretical_fpr"`
	OverCapacity         bool     `json:"over_capacity"`
}

// Run reads the filter (or set) and prints the report.
func (c *infoCmd) Run(e *env) error {
	if isSet(c.File) {
		return c.runSet(e)
	}
	r, err := report(c.File)
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

// report opens the filter read-only and gathers its report.
func report(path string) (infoReport, error) {
	f, err := mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
	if err != nil {
		return infoReport{}, err
	}
	defer f.Close()
	st, err := f.Stats()
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
		Flags: h.Flags, Sealed: h.Sealed(), K: st.K, Count: st.Count, P: st.P, M: st.M, N: st.N,
		Seed: h.Seed, ByteSize: h.ByteSize, FileSize: fi.Size(), DataCRC: h.DataCRC,
		SetBits: st.SetBits, FillRatio: st.FillRatio, EstimatedFPR: st.EstimatedFPR,
		TheoreticalFPR: st.TheoreticalFPR, OverCapacity: st.OverCapacity,
	}
	if !math.IsInf(st.EstimatedCardinality, 0) {
		r.EstimatedCardinality = &st.EstimatedCardinality
	}
	return r, nil
}

// writeText prints one aligned "name: value" line per field, named after
// its JSON name with spaces for underscores.
func (r infoReport) writeText(e *env) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 1, ' ', 0)
	v := reflect.ValueOf(r)
	for i := range v.NumField() {
		name := strings.ReplaceAll(v.Type().Field(i).Tag.Get("json"), "_", " ")
		fmt.Fprintf(tw, "%s:\t%s\n", name, textValue(v.Field(i)))
	}
	return tw.Flush()
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
