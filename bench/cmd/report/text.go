package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// Markers delimit the generated part of the markdown file.
const (
	beginMarker = "<!-- BEGIN GENERATED -->"
	endMarker   = "<!-- END GENERATED -->"
)

// splice replaces the text between the markers of the file at path.
func splice(path, generated string) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(old)
	i, j := strings.Index(s, beginMarker), strings.Index(s, endMarker)
	if i < 0 || j < i {
		return fmt.Errorf("%s: no %s ... %s markers", path, beginMarker, endMarker)
	}
	s = s[:i+len(beginMarker)] + "\n" + generated + s[j:]
	return os.WriteFile(path, []byte(s), 0o644)
}

// writeTextFile writes the file at path as a section of a fenced block;
// nothing when path is empty.
func writeTextFile(b *strings.Builder, title, lang, path string) error {
	if path == "" {
		return nil
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(b, "### %s\n\n```%s\n%s\n```\n\n", title, lang, strings.TrimRight(string(text), "\n"))
	return nil
}

// readNotes reads lines of "id: text"; a missing file means no notes.
func readNotes(path string) (map[string]string, error) {
	notes := map[string]string{}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return notes, nil
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, text, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%s: line %q is not id: text", path, line)
		}
		notes[strings.TrimSpace(id)] = strings.TrimSpace(text)
	}
	return notes, sc.Err()
}
