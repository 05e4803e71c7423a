package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// TestCreateKeys: create --keys makes the same file, byte for byte, as
// create then add of the same keys with the same seed, for every format
// and layout and every way of giving keys.
func TestCreateKeys(t *testing.T) {
	dir := t.TempDir()
	lines := writeFile(t, dir, "lines.txt", []byte("one\ntwo\r\n\nthree\none"))
	gz := filepath.Join(testkit.RepoRoot(), "testdata", "phishing-sample.txt.gz")
	inputs := []struct {
		name  string
		stdin string
		keys  []string // add's key arguments; create gets --keys of each
	}{
		{name: "stdin dash", stdin: "a\nb\na\n", keys: []string{"-"}},
		{name: "file and stdin", stdin: "x\n", keys: []string{lines, "-", lines}},
		{name: "NUL keys", stdin: "a\x00b\x00c", keys: []string{"-0", "-"}},
		{name: "gzip", keys: []string{gz}},
		{name: "empty", keys: []string{"-"}},
		{name: "shared", stdin: "a\nb\n", keys: []string{"--build-mode", "shared", "-"}},
		{name: "private", stdin: "a\nb\n", keys: []string{"--build-mode", "private", "-"}},
	}
	shapes := [][]string{
		{},
		{"--layout", "classic"},
		{"--scheme", "murmur2-seeds"},
		{"--format", "v1"},
	}
	for _, shape := range shapes {
		for _, in := range inputs {
			t.Run(strings.Join(append(shape, in.name), " "), func(t *testing.T) {
				dir := t.TempDir()
				added, built := filepath.Join(dir, "added.bloom"), filepath.Join(dir, "built.bloom")
				size := append([]string{"-n", "60000", "-p", "0.001", "--seed", "9"}, shape...)
				requireOK(t, runCLI(t, nil, append([]string{"create", added}, size...)...))
				args := append([]string{"create", built}, size...)
				var keyArgs []string
				for i := 0; i < len(in.keys); i++ {
					switch k := in.keys[i]; k {
					case "-0":
						args, keyArgs = append(args, k), append(keyArgs, k)
					case "--build-mode":
						args, i = append(args, k, in.keys[i+1]), i+1
					default:
						args, keyArgs = append(args, "--keys", k), append(keyArgs, k)
					}
				}
				requireOK(t, runCLI(t, []byte(in.stdin), append([]string{"add", added}, keyArgs...)...))
				requireOK(t, runCLI(t, []byte(in.stdin), args...))
				require.Equal(t, readFile(t, added), readFile(t, built))
				require.Equal(t, []string{"added.bloom", "built.bloom"}, testkit.DirNames(t, dir))
			})
		}
	}
}

// TestCreateKeysOverCapacity: more keys than n are built, with add's
// warning.
func TestCreateKeysOverCapacity(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.bloom")
	r := runCLI(t, []byte("a\nb\nc\nd\n"), "create", path, "-n", "3", "-p", "0.0001", "--keys", "-")
	require.Equal(t, exitOK, r.code)
	require.Contains(t, r.stderr, "mmapbloom: warning: "+path+" holds 4 keys, more than its capacity n = 3")
}

// TestCreateKeysBadInput: an unusable key file or a flag that does not
// go with --keys fails before any file is made, and leaves none.
func TestCreateKeysBadInput(t *testing.T) {
	good := writeFile(t, t.TempDir(), "good.txt", []byte("good1\ngood2\n"))
	for name, keyFile := range badKeyFiles(t) {
		t.Run("key file "+name, func(t *testing.T) {
			dir := t.TempDir()
			r := runCLI(t, []byte("stdin\n"), "create", filepath.Join(dir, "f.bloom"), "-n", "10", "-p", "0.01",
				"--keys", good, "--keys", keyFile, "--keys", "-")
			requireFailure(t, r, "key file")
			require.Empty(t, testkit.DirNames(t, dir))
		})
	}
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"-0 alone":   {[]string{"-n", "10", "-p", "0.01", "-0"}, "-0 and --build-mode are for --keys"},
		"mode alone": {[]string{"-n", "10", "-p", "0.01", "--build-mode", "shared"}, "-0 and --build-mode are for --keys"},
		"no -p":      {[]string{"-n", "10", "--keys", good}, "-p is missing"},
		"--like":     {[]string{"--like", good, "--keys", good}, "--keys builds a new filter file"},
		"exist-ok":   {[]string{"-n", "10", "-p", "0.01", "--exist-ok", "--keys", good}, "--keys builds a new filter file"},
		"set":        {[]string{"-n", "10", "-p", "0.01", "--expansion", "2", "--keys", good}, "--keys builds a new filter file"},
		"bad shape":  {[]string{"-n", "10", "-p", "0.01", "--format", "v1", "--layout", "blocked512", "--keys", good}, "format v1.1 has only the classic layout"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			requireFailure(t, runCLI(t, nil, append([]string{"create", filepath.Join(dir, "f.bloom")}, tc.args...)...), tc.want)
			require.Empty(t, testkit.DirNames(t, dir))
		})
	}
}

// TestCreateKeysInterrupted: SIGINT or SIGTERM while create --keys reads
// a quiet pipe ends it with status 128 + the signal, one line, and no
// file at all; kill -9 leaves no FILE (its temporary file may remain).
func TestCreateKeysInterrupted(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := testkit.Command(t, binary(t), "create", filepath.Join(dir, "f.bloom"), "-n", "1000000", "-p", "0.001", "--keys", "-")
			stdin, err := cmd.StdinPipe()
			require.NoError(t, err)
			defer stdin.Close()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			_, err = stdin.Write(bytes.Repeat([]byte("https://example.com/some/path?q=1\n"), 10_000))
			require.NoError(t, err)
			requireSoon(t, func() bool { return len(testkit.DirNames(t, dir)) == 1 }, "the temporary file")
			require.NoError(t, cmd.Process.Signal(sig))
			err = cmd.Wait()
			code := exitOf(t, err, cmd)
			names := testkit.DirNames(t, dir)
			if sig == syscall.SIGKILL {
				require.Len(t, names, 1)
				require.True(t, strings.HasPrefix(names[0], ".f.bloom.tmp"), names[0])
				return
			}
			require.Equal(t, 128+int(sig), code, stderr.String())
			require.Regexp(t, `^mmapbloom: interrupted by SIG(INT|TERM): read \d+ keys; \S+ was not created\n$`, stderr.String())
			require.Empty(t, names)
		})
	}
}

// requireSoon polls cond every 10 ms for up to a minute.
func requireSoon(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for range 6000 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	require.Fail(t, "timed out waiting for "+what)
}
