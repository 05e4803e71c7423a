package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// kv is the key=value line a child program prints.
type kv map[string]string

// parseKV reads a line of space-separated key=value pairs.
func parseKV(line string) kv {
	m := kv{}
	for _, field := range strings.Fields(line) {
		if k, v, ok := strings.Cut(field, "="); ok {
			m[k] = v
		}
	}
	return m
}

// num returns the value of key as a number, NaN when absent or not one.
func (m kv) num(key string) float64 {
	v, err := strconv.ParseFloat(m[key], 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// besideSelf returns the path of the program name in the directory of
// this executable.
func besideSelf(name string) string {
	exe, err := os.Executable()
	if err != nil {
		return name
	}
	return filepath.Join(filepath.Dir(exe), name)
}

// runOnce runs prog with args and parses its one output line.
func runOnce(prog string, args ...string) (kv, error) {
	cmd := exec.Command(prog, args...)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %v: %w", prog, args, err)
	}
	return parseKV(string(b)), nil
}

// child is a started program that printed "ready" and waits for a line.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines *bufio.Scanner
}

// runTogether starts prog once per argument list, waits until every one
// is ready, starts them all with one line each, and returns their result
// lines in order.
func runTogether(prog string, argv [][]string) ([]kv, error) {
	children := make([]*child, 0, len(argv))
	defer func() {
		for _, c := range children {
			_ = c.stdin.Close()
			_ = c.cmd.Wait()
		}
	}()
	for _, args := range argv {
		c, err := startChild(prog, args)
		if err != nil {
			return nil, err
		}
		children = append(children, c)
	}
	for _, c := range children {
		if _, err := c.readLine("ready"); err != nil {
			return nil, err
		}
	}
	for _, c := range children {
		if _, err := io.WriteString(c.stdin, "go\n"); err != nil {
			return nil, err
		}
	}
	results := make([]kv, len(children))
	for i, c := range children {
		line, err := c.readLine("")
		if err != nil {
			return nil, err
		}
		results[i] = parseKV(line)
	}
	return results, nil
}

func startChild(prog string, args []string) (*child, error) {
	cmd := exec.Command(prog, args...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", prog, err)
	}
	return &child{cmd: cmd, stdin: stdin, lines: bufio.NewScanner(stdout)}, nil
}

// readLine reads the child's next line; when want is not empty, the line
// must be exactly that.
func (c *child) readLine(want string) (string, error) {
	if !c.lines.Scan() {
		err := c.lines.Err()
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return "", fmt.Errorf("%s: %w", c.cmd.Path, err)
	}
	line := c.lines.Text()
	if want != "" && line != want {
		return "", fmt.Errorf("%s: got %q, want %q", c.cmd.Path, line, want)
	}
	return line, nil
}
