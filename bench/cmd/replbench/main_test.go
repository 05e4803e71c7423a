package main

import (
	"bufio"
	"bytes"
	"net"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeServer answers every command with reply, counting the commands
// by name, until the test ends.
func fakeServer(t *testing.T, reply string, counts map[string]*atomic.Int64) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go serveFake(nc, reply, counts)
		}
	}()
	return ln.Addr().String()
}

func serveFake(nc net.Conn, reply string, counts map[string]*atomic.Int64) {
	defer nc.Close()
	r := bufio.NewReader(nc)
	for {
		line, err := readLine(r)
		if err != nil {
			return
		}
		n, _ := strconv.Atoi(string(line[1:]))
		var name string
		for i := 0; i < 2*n; i++ {
			if line, err = readLine(r); err != nil {
				return
			}
			if i == 1 {
				name = string(line)
			}
		}
		counts[name].Add(1)
		if _, err := nc.Write([]byte(reply)); err != nil {
			return
		}
	}
}

func TestRun(t *testing.T) {
	counts := map[string]*atomic.Int64{"SADD": {}, "WAIT": {}}
	addr := fakeServer(t, ":1\r\n", counts)
	var out bytes.Buffer
	require.NoError(t, run([]string{"-addr", addr, "-c", "3", "-P", "4", "-n", "25", "-cmd", "SADD", "-wait"}, &out))
	assert.Regexp(t, `^adds=36 seconds=[0-9.]+ adds_per_s=\d+ p50_ms=[0-9.]+ p99_ms=[0-9.]+\n$`, out.String())
	assert.EqualValues(t, 36, counts["SADD"].Load(), "3 rounds of 4 on 3 connections")
	assert.EqualValues(t, 9, counts["WAIT"].Load(), "one WAIT per round")
}

func TestRunFails(t *testing.T) {
	for name, c := range map[string]struct {
		reply string
		args  []string
	}{
		"error reply":      {"-ERR no\r\n", nil},
		"no replica":       {":0\r\n", []string{"-wait"}},
		"no address":       {":1\r\n", []string{"-addr", ""}},
		"zero connections": {":1\r\n", []string{"-c", "0"}},
	} {
		addr := fakeServer(t, c.reply, map[string]*atomic.Int64{"BF.ADD": {}, "WAIT": {}})
		err := run(append([]string{"-addr", addr, "-n", "10", "-c", "2"}, c.args...), &bytes.Buffer{})
		assert.Error(t, err, name)
	}
}
