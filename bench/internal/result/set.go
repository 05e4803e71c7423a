package result

import (
	"slices"

	"github.com/mmapbloom/mmapbloom/bench/keys"
)

// Set is the results of a run, in the order read.
type Set []Result

// Find returns the last result of fn whose params include every pair of
// want (a later run of the same benchmark replaces an earlier one).
func (s Set) Find(fn string, want map[string]string) (Result, bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i].Func == fn && s[i].matches(want) {
			return s[i], true
		}
	}
	return Result{}, false
}

// Metric returns the value of unit in the result Find returns.
func (s Set) Metric(fn string, want map[string]string, unit string) (float64, bool) {
	r, ok := s.Find(fn, want)
	if !ok {
		return 0, false
	}
	v, ok := r.Metrics[unit]
	return v, ok
}

// Values returns the distinct values of param among the results of fn,
// in order of first appearance.
func (s Set) Values(fn, param string) []string {
	var vs []string
	for _, r := range s {
		if v, ok := r.Params[param]; ok && r.Func == fn && !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	return vs
}

// SizesOf returns the distinct n values of fn sorted by size (see
// keys.ParseN; unparsable ones last).
func (s Set) SizesOf(fn string) []string {
	ns := s.Values(fn, "n")
	slices.SortStableFunc(ns, func(a, b string) int {
		return keyCount(a) - keyCount(b)
	})
	return ns
}

// keyCount reads an n value, or a very large number when it is none.
func keyCount(s string) int {
	n, err := keys.ParseN(s)
	if err != nil {
		return int(^uint(0) >> 1)
	}
	return n
}

func (r Result) matches(want map[string]string) bool {
	for k, v := range want {
		if r.Params[k] != v {
			return false
		}
	}
	return true
}
