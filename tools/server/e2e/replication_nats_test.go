package e2e_test

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/tools/replication/natstest"
)

// Three serve nodes whose embedded NATS servers route over mutual TLS
// with a cluster secret, under a cluster name and a prefix of their
// own: adds through go-redis's ClusterClient are in the files of every
// node (each applies every stream).
func TestReplicationNATSSecretTLS(t *testing.T) {
	c := natstest.NewCerts(t)
	secret := filepath.Join(t.TempDir(), "nats.secret")
	require.NoError(t, os.WriteFile(secret, []byte("a long cluster secret\n"), 0o600))
	r := startReplicated(t, "--nats-secret-file", secret, "--nats-tls", "yes", "--tls-cert-file", c.CertFile,
		"--tls-key-file", c.KeyFile, "--tls-ca-cert-file", c.CAFile, "--nats-cluster-name", "e2e-tls", "--nats-prefix", "E2E")
	var acks atomic.Int64
	acked := addUntil(r.client(t, 0), 2, 640, &acks, nil)
	t.Logf("%d of 640 adds acknowledged", acks.Load())
	require.Positive(t, acks.Load())
	for i, dir := range r.dirs {
		require.Eventually(t, func() bool { return missingIn(dir, acked) == 0 }, time.Minute, 200*time.Millisecond,
			"node%d has every acknowledged add (%d missing)", i+1, missingIn(dir, acked))
	}
	require.Empty(t, r.logged("WARNING"))
}
