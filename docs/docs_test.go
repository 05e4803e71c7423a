package docs

import (
	"bufio"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// tree is the repository as the tests see it: every file and directory
// by its slash path from the top, without .git.
type tree struct {
	root  string
	files map[string]bool
	dirs  map[string]bool
}

// readTree walks the repository once.
func readTree(t *testing.T) tree {
	t.Helper()
	tr := tree{root: testkit.RepoRoot(), files: map[string]bool{}, dirs: map[string]bool{}}
	err := filepath.WalkDir(tr.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(tr.root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.IsDir():
			tr.dirs[rel] = true
		default:
			tr.files[rel] = true
		}
		return nil
	})
	require.NoError(t, err)
	return tr
}

// exists reports whether rel (a slash path from the top) is a file or a
// directory of the repository.
func (tr tree) exists(rel string) bool {
	rel = path.Clean(rel)
	return tr.files[rel] || tr.dirs[rel]
}

// read returns the text of the file rel.
func (tr tree) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(tr.root, filepath.FromSlash(rel)))
	require.NoError(t, err)
	return string(b)
}

// withExt returns the repository's files whose names end in one of exts,
// sorted.
func (tr tree) withExt(exts ...string) []string {
	var out []string
	for f := range tr.files {
		if slices.Contains(exts, path.Ext(f)) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// packages returns the directories `go list ./... ./tools/...` lists
// from the top (with go.work): those holding a .go file, outside
// testdata/ and directories whose name starts with . or _ (the go
// command ignores them), and outside bench/, a module of its own that
// its scripts run.
func (tr tree) packages() []string {
	seen := map[string]bool{}
	for _, f := range tr.withExt(".go") {
		dir := path.Dir(f)
		if dir == "bench" || strings.HasPrefix(dir, "bench/") || ignoredByGo(dir) {
			continue
		}
		seen[dir] = true
	}
	var out []string
	for d := range seen {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// ignoredByGo reports whether the go command skips the directory dir
// in a ./... pattern.
func ignoredByGo(dir string) bool {
	for _, e := range strings.Split(dir, "/") {
		if e == "testdata" || strings.HasPrefix(e, ".") || strings.HasPrefix(e, "_") {
			return true
		}
	}
	return false
}

var (
	// tableRow is a row of ARCHITECTURE.md's package table: its first
	// cell's package, in back quotes.
	tableRow = regexp.MustCompile("^\\| `([^`]+)`")
	// treeLine is a line of its text tree: a directory, then its purpose.
	treeLine = regexp.MustCompile(`^(\S+/)\s`)
)

// TestArchitecturePackages checks that ARCHITECTURE.md's text tree and
// package table each name every package of the repository, and name
// only directories that exist.
func TestArchitecturePackages(t *testing.T) {
	tr := readTree(t)
	doc := tr.read(t, "docs/ARCHITECTURE.md")
	inTree, inTable := map[string]bool{}, map[string]bool{}
	inText := false
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			inText = line == "```text"
		case inText:
			m := treeLine.FindStringSubmatch(line)
			if assert.NotNil(t, m, "ARCHITECTURE.md tree line %q names no directory", line) {
				inTree[strings.TrimSuffix(m[1], "/")] = true
			}
		default:
			if m := tableRow.FindStringSubmatch(line); m != nil && m[1] != "package" {
				inTable[m[1]] = true
			}
		}
	}
	for _, named := range []map[string]bool{inTree, inTable} {
		for p := range named {
			assert.True(t, tr.dirs[p], "ARCHITECTURE.md names %s/, which does not exist", p)
		}
	}
	for _, p := range tr.packages() {
		assert.True(t, inTree[p], "package %s is not in ARCHITECTURE.md's text tree", p)
		assert.True(t, inTable[p], "package %s is not in ARCHITECTURE.md's package table", p)
	}
}

// module is the import path of the repository's module.
const module = "github.com/mmapbloom/mmapbloom/"

// quoted matches a back-quoted name in a table cell.
var quoted = regexp.MustCompile("`([^`]+)`")

// TestArchitectureImports checks that each row of ARCHITECTURE.md's
// package table names, in its third cell, every package of the
// repository its package imports: from its non-test files, or from its
// test files for a package of tests only. A name ending in /... covers
// the packages under it.
func TestArchitectureImports(t *testing.T) {
	tr := readTree(t)
	for _, line := range strings.Split(tr.read(t, "docs/ARCHITECTURE.md"), "\n") {
		m := tableRow.FindStringSubmatch(line)
		cells := strings.Split(line, "|")
		if m == nil || m[1] == "package" || len(cells) < 5 {
			continue
		}
		var named []string
		for _, q := range quoted.FindAllStringSubmatch(cells[3], -1) {
			named = append(named, q[1])
		}
		for _, imp := range tr.imports(t, m[1]) {
			assert.True(t, covers(named, imp), "ARCHITECTURE.md's row of %s does not name %s, which it imports", m[1], imp)
		}
	}
}

// covers reports whether one of the names, a package or a pattern
// ending in /..., is the package p.
func covers(names []string, p string) bool {
	for _, n := range names {
		if n == p || strings.HasSuffix(n, "/...") && strings.HasPrefix(p, strings.TrimSuffix(n, "...")) {
			return true
		}
	}
	return false
}

// imports returns the repository's packages (slash paths from the top)
// that the package in directory dir imports: from its non-test files,
// or, when it has none, from its test files.
func (tr tree) imports(t *testing.T, dir string) []string {
	t.Helper()
	var src, tests []string
	for _, f := range tr.withExt(".go") {
		switch {
		case path.Dir(f) != dir:
		case strings.HasSuffix(f, "_test.go"):
			tests = append(tests, f)
		default:
			src = append(src, f)
		}
	}
	if len(src) == 0 {
		src = tests
	}
	seen := map[string]bool{}
	for _, f := range src {
		file, err := parser.ParseFile(token.NewFileSet(), filepath.Join(tr.root, filepath.FromSlash(f)), nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, spec := range file.Imports {
			p, err := strconv.Unquote(spec.Path.Value)
			require.NoError(t, err)
			if rel, ok := strings.CutPrefix(p, module); ok && rel != dir {
				seen[rel] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// fileName matches a file a comment names: Go, assembly, C, Python or
// Markdown, bare or with a path (tools/server/conn_guard.go), or a
// pattern (tools/mmapbloom/dedup_*_test.go).
var fileName = regexp.MustCompile(`(?:^|[^\w./*-])((?:[\w.*-]+/)*[\w*-][\w.*-]*\.(go|s|c|h|py|md))\b`)

// external lists the files of other projects that comments cite, by
// base name, with the project; they are not in this repository.
var external = map[string]string{
	"server.c":              "Redis's src/server.c",
	"acl.c":                 "Redis's src/acl.c",
	"crc16.c":               "Redis's src/crc16.c",
	"sds.c":                 "Redis's src/sds.c",
	"networking.c":          "Redis's src/networking.c",
	"util.c":                "Redis's src/util.c",
	"expire.c":              "Redis's src/expire.c",
	"nats.go":               "nats.go's nats.go (the client's options)",
	"config.c":              "Redis's and RedisBloom's src/config.c (CONFIG SET texts)",
	"rebloom.c":             "RedisBloom's src/rebloom.c",
	"sb.c":                  "RedisBloom's src/sb.c",
	"sbf.c":                 "bloomd's src/libbloom/sbf.c",
	"test_overall.py":       "RedisBloom's tests/flow/test_overall.py",
	"test_resp3.py":         "RedisBloom's tests/flow/test_resp3.py",
	"test_bloom_command.py": "valkey-bloom's tests/test_bloom_command.py",
}

// TestCommentFiles checks that every file a Go comment names exists.
// A bare Go or assembly file name is a file of the commenting file's
// directory; another bare name (FORMAT.md, interop.py) a file of that
// name anywhere in the repository; a path is taken from the commenting
// file's directory or one of its parents, up to the top. A pattern must
// match a file. Names of other projects' files are in external.
func TestCommentFiles(t *testing.T) {
	tr := readTree(t)
	for _, f := range tr.withExt(".go") {
		for _, c := range comments(t, tr, f) {
			for _, m := range fileName.FindAllStringSubmatch(c.text, -1) {
				name, ext := m[1], m[2]
				if _, ok := external[path.Base(name)]; ok || tr.named(path.Dir(f), name, ext) {
					continue
				}
				t.Errorf("%s:%d: comment names %s, which does not exist", f, c.line, name)
			}
		}
	}
}

// named reports whether name, with extension ext, seen in a comment of
// a file in dir, matches a file of the repository (the rules of
// TestCommentFiles).
func (tr tree) named(dir, name, ext string) bool {
	bare := !strings.Contains(name, "/")
	for f := range tr.files {
		switch {
		case bare && (ext == "go" || ext == "s"):
			if ok, _ := path.Match(path.Join(dir, name), f); ok {
				return true
			}
		case bare:
			if ok, _ := path.Match(name, path.Base(f)); ok {
				return true
			}
		default:
			for d := dir; ; d = path.Dir(d) {
				if ok, _ := path.Match(path.Join(d, name), f); ok {
					return true
				}
				if d == "." {
					break
				}
			}
		}
	}
	return false
}

// comment is one comment of a Go file and the line it starts on.
type comment struct {
	text string
	line int
}

// comments returns the comments of the Go file f.
func comments(t *testing.T, tr tree, f string) []comment {
	t.Helper()
	src := []byte(tr.read(t, f))
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile(f, -1, len(src)), src, nil, scanner.ScanComments)
	var out []comment
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.COMMENT {
			out = append(out, comment{text: lit, line: fset.Position(pos).Line})
		}
	}
}

// filesEntry is an entry of tools/server/doc.go's # Files section: a
// file (tools/server/server.go) or a file prefix (conn_).
var filesEntry = regexp.MustCompile(`^//\t(\w+)(?:_|\.go)\s`)

// TestServerFilePrefixes checks that tools/server/doc.go's # Files
// section lists every file prefix of the package (the name up to its
// first _, or its whole stem) and only those. doc.go is the section's
// own file.
func TestServerFilePrefixes(t *testing.T) {
	tr := readTree(t)
	listed := map[string]bool{}
	section := false
	for _, line := range strings.Split(tr.read(t, "tools/server/doc.go"), "\n") {
		if strings.HasPrefix(line, "// # ") {
			section = line == "// # Files"
		}
		if m := filesEntry.FindStringSubmatch(line); section && m != nil {
			listed[m[1]] = true
		}
	}
	prefixes := map[string]bool{}
	for _, f := range tr.withExt(".go") {
		dir, name := path.Split(f)
		if dir != "tools/server/" || strings.HasSuffix(name, "_test.go") || name == "doc.go" {
			continue
		}
		prefix, _, _ := strings.Cut(strings.TrimSuffix(name, ".go"), "_")
		prefixes[prefix] = true
	}
	for p := range prefixes {
		assert.True(t, listed[p], "tools/server/doc.go # Files does not list %s", p)
	}
	for p := range listed {
		assert.True(t, prefixes[p], "tools/server/doc.go # Files lists %s, which no file has", p)
	}
}

var (
	// inlineLink is a Markdown inline link or image: [text](target "title").
	inlineLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	// refLink is a link reference definition: [label]: target.
	refLink = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*(\S+)`)
	// codeSpan is inline code, whose text is no link.
	codeSpan = regexp.MustCompile("`[^`]*`")
	// scheme starts an absolute URL (https:, mailto:).
	scheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	// htmlAnchor is an explicit anchor: <a name="x"> or <a id="x">.
	htmlAnchor = regexp.MustCompile(`<a (?:name|id)="([^"]+)"`)
)

// TestMarkdownLinks checks that every relative link of every Markdown
// file of the repository reaches a file or directory, and, where it
// names a heading of a Markdown file (#section), that the heading is
// there by GitHub's anchor rule.
func TestMarkdownLinks(t *testing.T) {
	tr := readTree(t)
	anchors := map[string]map[string]bool{}
	for _, f := range tr.withExt(".md") {
		for _, l := range links(t, tr, f) {
			target, anchor, _ := strings.Cut(l.target, "#")
			rel := f
			if target != "" {
				rel = path.Join(path.Dir(f), target)
				if !tr.exists(rel) {
					t.Errorf("%s:%d: link %s: %s does not exist", f, l.line, l.target, rel)
					continue
				}
			}
			if anchor == "" || path.Ext(rel) != ".md" {
				continue
			}
			if anchors[rel] == nil {
				anchors[rel] = headingAnchors(tr.read(t, rel))
			}
			if !anchors[rel][anchor] {
				t.Errorf("%s:%d: link %s: %s has no heading #%s", f, l.line, l.target, rel, anchor)
			}
		}
	}
}

// link is a relative link of a Markdown file and its line.
type link struct {
	target string
	line   int
}

// links returns the relative links of the Markdown file f, outside code
// blocks and code spans.
func links(t *testing.T, tr tree, f string) []link {
	t.Helper()
	var out []link
	fenced := false
	sc := bufio.NewScanner(strings.NewReader(tr.read(t, f)))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		line = codeSpan.ReplaceAllString(line, "")
		var targets []string
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		if m := refLink.FindStringSubmatch(line); m != nil {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			target = strings.Trim(target, "<>")
			if !scheme.MatchString(target) {
				out = append(out, link{target: target, line: n})
			}
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// headingAnchors returns the anchors of a Markdown text: GitHub's slug
// of each ATX heading (lower case, letters, digits, _ and - kept, spaces
// to -, the rest dropped; a repeated slug gets -1, -2...), and explicit
// <a name> or <a id> anchors.
func headingAnchors(text string) map[string]bool {
	out := map[string]bool{}
	count := map[string]int{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		title, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if fenced || !ok || !strings.HasPrefix(line, "#") {
			continue
		}
		s := slug(title)
		if n := count[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		count[s]++
	}
	return out
}

// linkText keeps the text of a Markdown link in a heading.
var linkText = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// slug is GitHub's anchor of a heading's title.
func slug(title string) string {
	title = linkText.ReplaceAllString(strings.TrimSpace(title), "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestCIRunsNemesisSuite checks that .ci/run's nemesis step runs exactly
// the nemesis suite: a top-level test of the repository calls
// testkit.Nemesis (which skips it without MMAPBLOOM_NEMESIS=1) if and
// only if its name matches the pattern of one of the step's go test
// lines (nemesis_a, nemesis_b, nemesis_c) and its package is one that line names,
// so that no fault test is left out of CI and none runs in the race step.
func TestCIRunsNemesisSuite(t *testing.T) {
	tr := readTree(t)
	ci := tr.read(t, ".ci/run")
	steps := map[*regexp.Regexp][]string{}
	for _, m := range regexp.MustCompile(`(?m)^nemesis_([abc])='([^']+)'$`).FindAllStringSubmatch(ci, -1) {
		line := regexp.MustCompile(`(?m)^(?:\w+="[^"]*" )*MMAPBLOOM_NEMESIS=1 go test .*-run "\$nemesis_` + m[1] + `".*$`).FindString(ci)
		var dirs []string
		for _, d := range regexp.MustCompile(`\./(\S+)`).FindAllStringSubmatch(line, -1) {
			dirs = append(dirs, d[1])
		}
		require.NotEmpty(t, dirs, ".ci/run runs nemesis_%s with MMAPBLOOM_NEMESIS=1 on some packages", m[1])
		steps[regexp.MustCompile(m[2])] = dirs
	}
	require.Len(t, steps, 3, ".ci/run's nemesis_a, nemesis_b and nemesis_c")
	calls := regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\) \{\n\ttestkit\.Nemesis\(t\)$`)
	tests := regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\) \{$`)
	found := 0
	for _, f := range tr.withExt(".go") {
		if !strings.HasSuffix(f, "_test.go") || strings.HasPrefix(f, "bench/") {
			continue
		}
		text := tr.read(t, f)
		gated := map[string]bool{}
		for _, m := range calls.FindAllStringSubmatch(text, -1) {
			gated[m[1]] = true
		}
		for _, m := range tests.FindAllStringSubmatch(text, -1) {
			run := false
			for p, dirs := range steps {
				run = run || p.MatchString(m[1]) && slices.Contains(dirs, path.Dir(f))
			}
			assert.Equal(t, run, gated[m[1]], "%s: %s is run by .ci/run's nemesis step (%v) and calls testkit.Nemesis first (%v): both or neither", f, m[1], run, gated[m[1]])
			if gated[m[1]] {
				found++
			}
		}
	}
	assert.Positive(t, found, "nemesis tests found")
}
