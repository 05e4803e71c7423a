package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"
)

// load runs rounds on each of c.conns connections at once and returns
// every round's latency, or the first error.
func load(c config, rounds int) ([]time.Duration, error) {
	lats := make([][]time.Duration, c.conns)
	errs := make([]error, c.conns)
	var wg sync.WaitGroup
	for i := range c.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lats[i], errs[i] = conn(c, uint64(i), rounds)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return slices.Concat(lats...), nil
}

// conn runs rounds on one connection.
func conn(c config, id uint64, rounds int) ([]time.Duration, error) {
	nc, err := net.DialTimeout("tcp", c.addr, 10*time.Second)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	r := bufio.NewReader(nc)
	rng := rand.New(rand.NewPCG(c.seed, id))
	lat := make([]time.Duration, 0, rounds)
	var buf []byte
	for range rounds {
		buf = buf[:0]
		for range c.depth {
			buf = appendCommand(buf, c.cmd, c.key, strconv.FormatUint(rng.Uint64N(1e12), 10))
		}
		if c.wait {
			buf = appendCommand(buf, "WAIT", "1", "0")
		}
		t0 := time.Now()
		if _, err := nc.Write(buf); err != nil {
			return nil, err
		}
		if err := readReplies(r, c.depth, c.wait); err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(t0))
	}
	return lat, nil
}

// appendCommand appends a command in RESP (an array of bulk strings).
func appendCommand(buf []byte, args ...string) []byte {
	buf = fmt.Appendf(buf, "*%d\r\n", len(args))
	for _, a := range args {
		buf = fmt.Appendf(buf, "$%d\r\n%s\r\n", len(a), a)
	}
	return buf
}

// readReplies reads depth integer replies, then WAIT's when wait is set,
// which must count at least one replica.
func readReplies(r *bufio.Reader, depth int, wait bool) error {
	for i := range depth + btoi(wait) {
		line, err := readLine(r)
		if err != nil {
			return err
		}
		if len(line) == 0 || line[0] != ':' {
			return fmt.Errorf("reply %d: %q, want an integer", i, line)
		}
		if i == depth && string(line) == ":0" {
			return fmt.Errorf("WAIT 1 0 reached no replica")
		}
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// percentiles returns the 50th and 99th percentiles of lat (sorted in
// place).
func percentiles(lat []time.Duration) (p50, p99 time.Duration) {
	if len(lat) == 0 {
		return 0, 0
	}
	slices.Sort(lat)
	return lat[len(lat)*50/100], lat[min(len(lat)-1, len(lat)*99/100)]
}
