package server

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With the log and appendfsync always, a logged write is durable at its
// PubAck (the JetStream store syncs every write before it, on a quorum;
// a node replays from its recorded position, which never passes its
// synced filters): its reply waits for no Sync of this node's filters.
func TestReplicationAlwaysLogIsTheJournal(t *testing.T) {
	tc, _ := startLogged(t, func(c *Config) { c.AppendFsync = AppendFsyncAlways })
	var joined atomic.Int64
	tc.srvs[0].fsync.hooks.Store(&syncHooks{joined: func() { joined.Add(1) }, start: func() {}})
	rdb, c := dial(t, tc.addrs[0], ""), ctx(t)
	require.NoError(t, rdb.BFAdd(c, "seen", "a").Err())
	require.NoError(t, rdb.BFMAdd(c, "seen", "b", "c").Err())
	assert.Zero(t, joined.Load(), "logged writes wait for no Sync of the filters")
}
