package server

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// TestShutdownFinishesInFlight: Shutdown during a long pipeline answers
// the commands already read, closes the connection, and syncs and closes
// the filter; every acknowledged add is in the file afterwards.
func TestShutdownFinishesInFlight(t *testing.T) {
	dir := t.TempDir()
	s, err := New(Config{Dir: dir, Log: log.New(io.Discard, "", 0)})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()

	nc := rawConn(t, ln.Addr().String())
	const total = 200_000
	go func() {
		w := bufio.NewWriter(nc)
		for i := range total {
			fmt.Fprintf(w, "*3\r\n$6\r\nBF.ADD\r\n$1\r\nk\r\n$%d\r\n%s\r\n", len(key(i)), key(i))
		}
		_ = w.Flush() // fails once the server has closed the connection
	}()
	r := bufio.NewReader(nc)
	acked := 0
	for ; ; acked++ {
		line, err := r.ReadString('\n')
		if err != nil {
			break
		}
		require.Contains(t, []string{":1\r\n", ":0\r\n"}, line)
		if acked == 1000 {
			go func() { assert.NoError(t, s.Shutdown()) }()
		}
	}
	require.NoError(t, <-done)
	t.Logf("%d of %d adds acknowledged before the shutdown", acked, total)
	require.Less(t, acked, total)

	f, err := mmapbloom.Open(filepath.Join(dir, "k.bloom"), nil)
	require.NoError(t, err)
	defer f.Close()
	for i := range acked {
		ok, err := f.TestString(key(i))
		require.NoError(t, err)
		require.True(t, ok, key(i))
	}
}

func key(i int) string { return fmt.Sprintf("https://example.com/%d", i) }

// TestSharingWithLibrary: while clients add over RESP, another handle on
// the same file (as another process would) adds through the library;
// afterwards no key is missing on either side and BF.CARD equals the
// header count.
func TestSharingWithLibrary(t *testing.T) {
	dir := t.TempDir()
	_, addr := startServer(t, Config{Dir: dir})
	rdb, c := dial(t, addr, ""), ctx(t)
	require.NoError(t, rdb.BFReserveNonScaling(c, "shared", 0.001, 200_000).Err())
	lib, err := mmapbloom.Open(filepath.Join(dir, "shared.bloom"), nil)
	require.NoError(t, err)

	const per = 20_000
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per / 100 {
				items := make([]any, 100)
				for j := range items {
					items[j] = fmt.Sprintf("resp-%d-%d", w, i*100+j)
				}
				assert.NoError(t, rdb.BFMAdd(c, "shared", items...).Err())
			}
		}()
	}
	for i := range per {
		_, err := lib.TestAndAddString(fmt.Sprintf("lib-%d", i))
		require.NoError(t, err)
	}
	wg.Wait()
	require.NoError(t, lib.Close())

	var all []any
	for w := range 3 {
		for i := range per {
			all = append(all, fmt.Sprintf("resp-%d-%d", w, i))
		}
	}
	for i := range per {
		all = append(all, fmt.Sprintf("lib-%d", i))
	}
	got, err := rdb.BFMExists(c, "shared", all...).Result()
	require.NoError(t, err)
	for i, ok := range got {
		require.True(t, ok, all[i])
	}

	card, err := rdb.BFCard(c, "shared").Result()
	require.NoError(t, err)
	check, err := mmapbloom.Open(filepath.Join(dir, "shared.bloom"), &mmapbloom.OpenOptions{ReadOnly: true})
	require.NoError(t, err)
	defer check.Close()
	n, err := check.Count()
	require.NoError(t, err)
	assert.EqualValues(t, n, card, "BF.CARD is the header count")
	assert.LessOrEqual(t, card, int64(len(all)))
	assert.Greater(t, card, int64(len(all))*99/100, "only false positives at add time are not counted")
}

// TestShutdownStuckClient: a client that sends a long pipeline and never
// reads the replies does not hold Shutdown up: its writes are bounded.
func TestShutdownStuckClient(t *testing.T) {
	s, err := New(Config{Dir: t.TempDir(), Log: log.New(io.Discard, "", 0)})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	nc := rawConn(t, ln.Addr().String())
	echo := "*2\r\n$4\r\nECHO\r\n$1000\r\n" + strings.Repeat("e", 1000) + "\r\n"
	// 20 MB of replies owed, far beyond the socket buffers; the server
	// stops reading once they are full.
	require.NoError(t, nc.SetWriteDeadline(time.Now().Add(2*time.Second)))
	for range 20_000 {
		if _, err := nc.Write([]byte(echo)); err != nil {
			break
		}
	}
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown() }()
	select {
	case err := <-shut:
		require.NoError(t, err)
	case <-time.After(time.Minute):
		t.Fatal("Shutdown waits for a client that does not read")
	}
	require.NoError(t, <-done)
}
