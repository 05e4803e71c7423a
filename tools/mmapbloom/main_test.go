package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// command is the import path of this program, which the subprocess tests
// build once (testkit.Binary).
const command = "github.com/mmapbloom/mmapbloom/tools/mmapbloom"

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/ (verify of a set, verify's two forms)")

func TestMain(m *testing.M) {
	code := m.Run()
	testkit.RemoveBinaries()
	os.Exit(code)
}

// binary builds the command once and returns the binary's path.
func binary(t *testing.T) string {
	t.Helper()
	return testkit.Binary(t, command)
}

// assertGolden compares got with the golden file at path; -update
// rewrites the file with got first.
func assertGolden(t *testing.T, path, got string) {
	t.Helper()
	testkit.Golden(t, path, got, *updateGolden)
}

// result is what one run of the command gave.
type result struct {
	stdout, stderr string
	code           int
}

// runCLI runs the command in-process with stdin as its input.
func runCLI(t testing.TB, stdin []byte, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, bytes.NewReader(stdin), &out, &errOut)
	return result{stdout: out.String(), stderr: errOut.String(), code: code}
}

// runBinary runs the built binary as a subprocess.
func runBinary(t *testing.T, stdin []byte, args ...string) result {
	t.Helper()
	r := testkit.Run(t, binary(t), stdin, args...)
	return result{stdout: r.Stdout, stderr: r.Stderr, code: r.Code}
}

// requireOK checks that a run succeeded without a message.
func requireOK(t testing.TB, r result) {
	t.Helper()
	require.Equal(t, exitOK, r.code, "stderr: %s", r.stderr)
	require.Empty(t, r.stderr)
}

// requireFailure checks that a run failed with status 2 and one line on
// stderr naming the program once, without a panic or stack trace.
func requireFailure(t testing.TB, r result, contains string) {
	t.Helper()
	testkit.RequireFailure(t, testkit.Result{Stdout: r.stdout, Stderr: r.stderr, Code: r.code}, "mmapbloom", exitError, contains)
}

// writeFile writes data to name in dir and returns its path.
func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	return testkit.WriteFile(t, dir, name, data)
}

// readFile returns the bytes of path, or nil when it does not exist or
// is a directory.
func readFile(t testing.TB, path string) []byte {
	t.Helper()
	if st, err := os.Stat(path); err != nil || st.IsDir() {
		return nil
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// newFilter creates a v2 filter with seed 1 in a new directory.
func newFilter(t testing.TB, n, p string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.bloom")
	requireOK(t, runCLI(t, nil, "create", path, "-n", n, "-p", p, "--seed", "1"))
	return path
}

// vector returns the paths of the files of a seed003 vector, its .bin
// copied into a temporary directory.
func vector(t testing.TB, name string) (bin, added, queries, expected string) {
	t.Helper()
	base := filepath.Join(testkit.Testdata("vectors/seed003"), name)
	bin = writeFile(t, t.TempDir(), name+".bin", readFile(t, base+".bin"))
	return bin, base + ".added.txt.gz", base + ".queries.txt.gz", base + ".expected.txt"
}

// vectorNames are the seed003 vectors.
var vectorNames = []string{"urls-n10000-p0.0001-seed0", "mixed-n1000-p0.01-seed7"}

// badFilters returns filter files that no command may accept, by name.
func badFilters(t testing.TB) map[string]string {
	t.Helper()
	dir := t.TempDir()
	good := readFile(t, newFilter(t, "1000", "0.01"))
	corrupt := bytes.Clone(good)
	corrupt[24] ^= 0xff // m: the header checksum no longer matches
	return map[string]string{
		"missing":   filepath.Join(dir, "missing.bloom"),
		"empty":     writeFile(t, dir, "empty.bloom", nil),
		"short":     writeFile(t, dir, "short.bloom", good[:20]),
		"truncated": writeFile(t, dir, "truncated.bloom", good[:len(good)-100]),
		"foreign":   writeFile(t, dir, "foreign.bloom", bytes.Repeat([]byte("not a bloom filter\n"), 10)),
		"corrupt":   writeFile(t, dir, "corrupt.bloom", corrupt),
		"directory": dir,
	}
}

// infoOf returns the info --json report of path as a map.
func infoOf(t testing.TB, path string) map[string]any {
	t.Helper()
	r := runCLI(t, nil, "info", "--json", path)
	requireOK(t, r)
	return decodeJSON(t, r.stdout)
}

func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string
		stderr   string
		contains string
	}{
		{name: "no command", args: nil, code: exitError, contains: "expected one of"},
		{name: "unknown command", args: []string{"frobnicate"}, code: exitError, contains: "unexpected argument frobnicate"},
		{name: "unknown flag", args: []string{"info", "--frob", "x"}, code: exitError, contains: "unknown flag --frob"},
		{name: "negative capacity", args: []string{"create", "x.bloom", "-n", "-5", "-p", "0.01"}, code: exitError, contains: `--capacity: "-5" is not an unsigned integer`},
		{name: "negative p", args: []string{"create", "x.bloom", "-n", "5", "-p", "-0.01"}, code: exitError, contains: "p = -0.01: p must be a finite number in (0, 1)"},
		{name: "negative expansion", args: []string{"create", "x.bfset", "-n", "5", "-p", "0.01", "--expansion", "-2"}, code: exitError, contains: `--expansion: expected a valid 32 bit uint but got "-2"`},
		{name: "help", args: []string{"--help"}, code: exitOK, stdout: "Usage: mmapbloom <command>"},
		{name: "subcommand help", args: []string{"dedup", "--help"}, code: exitOK, stdout: "Usage: mmapbloom dedup <file>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, nil, tt.args...)
			if tt.code == exitError {
				requireFailure(t, r, tt.contains)
				return
			}
			requireOK(t, r)
			assert.Contains(t, r.stdout, tt.stdout)
		})
	}
}

func TestBinaryExitStatus(t *testing.T) {
	path := newFilter(t, "1000", "0.01")
	requireOK(t, runCLI(t, []byte("present\n"), "add", path))
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string
	}{
		{name: "match", stdin: "present\nabsent\n", args: []string{"test", path}, code: exitOK, stdout: "present\n"},
		{name: "no match", stdin: "absent\n", args: []string{"test", path}, code: exitNoMatch},
		{name: "invert", stdin: "present\nabsent\n", args: []string{"test", "-v", path}, code: exitOK, stdout: "absent\n"},
		{name: "missing filter", args: []string{"test", path + ".missing"}, code: exitError},
		{name: "bad p", args: []string{"create", path + ".new", "-n", "10", "-p", "2"}, code: exitError},
		{name: "key file is a directory", args: []string{"add", path, t.TempDir()}, code: exitError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runBinary(t, []byte(tt.stdin), tt.args...)
			if tt.code == exitError {
				requireFailure(t, r, "")
				return
			}
			require.Equal(t, tt.code, r.code, "stderr: %s", r.stderr)
			require.Empty(t, r.stderr)
			require.Equal(t, tt.stdout, r.stdout)
		})
	}
}

func TestBinaryQuickStart(t *testing.T) {
	sample := filepath.Join(testkit.RepoRoot(), "testdata", "phishing-sample.txt.gz")
	path := filepath.Join(t.TempDir(), "seen.bloom")
	args := []string{"dedup", path, "-n", "100000", "-p", "0.001", sample}
	first := runBinary(t, nil, args...)
	requireOK(t, first)
	lines := strings.Count(first.stdout, "\n")
	assert.InDelta(t, 50000, lines, 50000*0.002, "new lines of 50,000 distinct URLs")
	second := runBinary(t, nil, args...)
	requireOK(t, second)
	assert.Empty(t, second.stdout)
	info := runBinary(t, nil, "info", path)
	requireOK(t, info)
	assert.Regexp(t, fmt.Sprintf(`(?m)^count: +%d$`, lines), info.stdout)
}

// TestHelpPlaceholders: no flag of any command shows the placeholder
// kong derives from a sized Go type (--disk-reserve=UINT-64); such a
// flag names what the value is (BYTES, N...).
func TestHelpPlaceholders(t *testing.T) {
	top := runCLI(t, nil, "--help")
	requireOK(t, top)
	commands := regexp.MustCompile(`(?m)^  ([a-z][a-z-]*)\b`).FindAllStringSubmatch(top.stdout, -1)
	require.Greater(t, len(commands), 5, top.stdout)
	typeName := regexp.MustCompile(`=[A-Z]+-[0-9]+\b`)
	for _, c := range commands {
		t.Run(c[1], func(t *testing.T) {
			r := runCLI(t, nil, c[1], "--help")
			requireOK(t, r)
			assert.Empty(t, typeName.FindAllString(r.stdout, -1), "placeholders named after Go types")
		})
	}
}
