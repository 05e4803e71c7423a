package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// headerFields are the info --json fields, in order; statsFields follow
// them with --stats.
var (
	headerFields = []string{
		"format_version", "layout", "scheme", "flags", "sealed", "k", "count", "p", "m", "n", "seed",
		"byte_size", "file_size", "data_crc", "theoretical_fpr", "theoretical_fpr_at_count", "over_capacity",
	}
	statsFields = []string{"set_bits", "fill_ratio", "estimated_cardinality", "estimated_fpr"}
)

// textLabels are the text labels that differ from the JSON name with
// spaces for underscores: each false-positive figure says which it is.
var textLabels = map[string]string{
	"p":                        "p (target fpr at n)",
	"theoretical_fpr":          "theoretical fpr (at n keys)",
	"theoretical_fpr_at_count": "theoretical fpr at count (expected now)",
	"estimated_fpr":            "estimated fpr (from the fill now)",
}

func TestInfo(t *testing.T) {
	full := filepath.Join(t.TempDir(), "full.bloom") // m = 2 bits, k = 1
	requireOK(t, runCLI(t, nil, "create", full, "-n", "1", "-p", "0.5", "--layout", "classic"))
	require.Equal(t, exitOK, runCLI(t, []byte(numbered("key", 40)), "add", full).code)
	tests := []struct {
		name string
		path func(t *testing.T) string
		text []string // lines of the text output
		json map[string]any
	}{
		{
			name: "vector urls-n10000-p0.0001-seed0",
			path: func(t *testing.T) string { bin, _, _, _ := vector(t, "urls-n10000-p0.0001-seed0"); return bin },
			text: []string{"format version: v1.1", "layout: classic", "scheme: murmur2-double-v1", "sealed: false",
				"k: 13", "count: 10000", "p (target fpr at n): 0.0001", "m: 191744", "n: 10000", "seed: 0", "byte size: 23968",
				"file size: 24032", "data crc: 0", "over capacity: false"},
			json: map[string]any{"format_version": "v1.1", "count": 10000.0, "m": 191744.0, "k": 13.0, "over_capacity": false},
		},
		{
			name: "every bit set",
			path: func(*testing.T) string { return full },
			text: []string{"fill ratio: 1", "estimated cardinality: +Inf", "estimated fpr (from the fill now): 1", "over capacity: true"},
			json: map[string]any{"fill_ratio": 1.0, "estimated_cardinality": nil, "estimated_fpr": 1.0, "count": 2.0}, // 40 adds, 2 of them set a clear bit,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path(t)
			r := runCLI(t, nil, "info", "--stats", path)
			requireOK(t, r)
			spaces := regexp.MustCompile(`: +`)
			for _, line := range tt.text {
				assert.Contains(t, spaces.ReplaceAllString(r.stdout, ": "), line+"\n")
			}
			r = runCLI(t, nil, "info", "--stats", "--json", path)
			requireOK(t, r)
			var got map[string]any
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
			for field, want := range tt.json {
				assert.Equal(t, want, got[field], field)
			}
		})
	}
}

// numbered returns n lines prefix0 to prefix(n-1).
func numbered(prefix string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s%d\n", prefix, i)
	}
	return b.String()
}

func TestInfoTextAligned(t *testing.T) {
	path := newFilter(t, "100", "0.01")
	for _, tc := range []struct {
		args   []string
		fields []string
	}{
		{nil, headerFields},
		{[]string{"--stats"}, append(slices.Clone(headerFields), statsFields...)},
	} {
		r := runCLI(t, nil, append([]string{"info", path}, tc.args...)...)
		requireOK(t, r)
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		require.Len(t, lines, len(tc.fields))
		column := regexp.MustCompile(`^[a-z ()]+: +`)
		width := len(column.FindString(lines[0]))
		for i, line := range lines {
			require.Len(t, column.FindString(line), width, line)
			label, ok := textLabels[tc.fields[i]]
			if !ok {
				label = strings.ReplaceAll(tc.fields[i], "_", " ")
			}
			require.True(t, strings.HasPrefix(line, label+":"), line)
		}
	}
}

func TestInfoJSONFields(t *testing.T) {
	path := newFilter(t, "100", "0.01")
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	for _, tc := range []struct {
		args   []string
		fields []string
	}{
		{nil, headerFields},
		{[]string{"--stats"}, append(slices.Clone(headerFields), statsFields...)},
	} {
		r := runCLI(t, nil, append([]string{"info", "--json", path}, tc.args...)...)
		requireOK(t, r)
		dec := json.NewDecoder(strings.NewReader(r.stdout))
		_, err := dec.Token() // {
		require.NoError(t, err)
		var names []string
		for dec.More() {
			name, err := dec.Token()
			require.NoError(t, err)
			names = append(names, name.(string))
			var v any
			require.NoError(t, dec.Decode(&v))
		}
		require.Equal(t, tc.fields, names)
		for _, name := range names {
			assert.Contains(t, string(readme), fmt.Sprintf("| `%s` |", name), "README.md does not document %s", name)
		}
	}
}

// TestInfoFPRFigures checks the header-only false-positive figures
// against the library's model: at n keys, and at the current count.
func TestInfoFPRFigures(t *testing.T) {
	path := newFilter(t, "1000", "0.01")
	requireOK(t, runCLI(t, []byte(numbered("key", 500)), "add", path))
	got := infoOf(t, path)
	atN, atCount := got["theoretical_fpr"].(float64), got["theoretical_fpr_at_count"].(float64)
	assert.LessOrEqual(t, atN, 0.01, "sized for p at n")
	assert.Greater(t, atN, 0.001)
	assert.Less(t, atCount, atN/10, "half full: far below p")
	assert.Greater(t, atCount, 0.0)
}

func TestInfoBadInput(t *testing.T) {
	for name, path := range badFilters(t) {
		t.Run(name, func(t *testing.T) {
			requireFailure(t, runCLI(t, nil, "info", path), "")
			requireFailure(t, runCLI(t, nil, "info", "--json", path), "")
		})
	}
}
