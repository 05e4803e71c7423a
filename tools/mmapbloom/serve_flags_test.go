package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestServeBadFlags: values the server would take for its default, or
// that would make every auto-created key fail, are refused before it
// listens (a new user's trial found them accepted).
func TestServeBadFlags(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "nodes.conf")
	require.NoError(t, os.WriteFile(conf, []byte("n1 127.0.0.1:7001 0-16383 nats=127.0.0.1:6201\n"), 0o644))
	replicated := []string{"--cluster-config", conf, "--node-id", "n1", "--replication", "jetstream"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--default-error-rate", "2"}, "default error rate 2: want (0, 1)"},
		{[]string{"--default-error-rate", "-0.1"}, "default error rate -0.1: want (0, 1)"},
		// 0 was taken for the default, 0.01, without a word.
		{[]string{"--default-error-rate", "0"}, "--default-error-rate 0: want a rate in (0, 1)"},
		{[]string{"--default-error-rate", "-0"}, "--default-error-rate 0: want a rate in (0, 1)"},
		{[]string{"--default-expansion", "40000"}, "default expansion 40000: at most 32768"},
		{[]string{"--default-capacity", "0"}, "--default-capacity 0: want at least 1"},
		{[]string{"--maxclients", "0"}, "--maxclients 0: want at least 1"},
		{[]string{"--max-request", "0"}, "--max-request 0: want at least 1"},
		{[]string{"--fold-hashtags", "--fold-buckets", "0"}, "--fold-buckets 0: want at least 1"},
		{[]string{"--fold-hashtags", "--fold-buckets", "48"}, "48 buckets: give a power of two"},
		{[]string{"--fold-buckets", "128"}, "--fold-buckets 128 without --fold-hashtags"},
		{append(replicated, "--lease-ttl", "100ms"), "--lease-ttl 100ms: want 0 (no failover) or at least 200ms"},
		{append(replicated, "--lease-ttl", "-1s"), "--lease-ttl -1s: want 0 (no failover) or at least 200ms"},
		{append(replicated, "--lease-read", "never"), `--lease-read must be one of "clock","confirm" but got "never"`},
		{[]string{"--appendfsync", "sometimes"}, "--appendfsync must be one of \"always\",\"everysec\",\"no\""},
		{append(replicated, "--nats-url", "nats://127.0.0.1:4222", "--nats-secret-file", conf), "--nats-secret-file is the embedded servers' secret"},
		{append(replicated, "--nats-creds-file", conf), "--nats-creds-file without --nats-url"},
		{append(replicated, "--nats-url", "nats://127.0.0.1:4222", "--nats-user", "u"), "give --nats-user and --nats-password-file together"},
		{append(replicated, "--nats-prefix", "mbf"), `prefix "mbf": want 1 to 32 upper-case letters`},
		{append(replicated, "--nats-tls", "yes"), "--nats-tls: TLS: tls-cert-file"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := append([]string{"serve", "--dir", dir, "--addr", "127.0.0.1:0"}, tc.args...)
			requireFailure(t, runCLI(t, nil, args...), tc.want)
		})
	}
}

// TestServeProtectedMode: a non-loopback address needs a password or
// --unprotected.
func TestServeProtectedMode(t *testing.T) {
	r := runCLI(t, nil, "serve", "--dir", t.TempDir(), "--addr", "0.0.0.0:0")
	requireFailure(t, r, "refusing to listen on a non-loopback address without a password")
}
