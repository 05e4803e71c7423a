package replication

import (
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStartEmbedded32Bit: on a 32-bit platform (the 386 run of .ci/run)
// StartEmbedded refuses with ErrEmbedded instead of starting a
// nats-server that panics on its first statistics.
func TestStartEmbedded32Bit(t *testing.T) {
	if !Embedded32Bit {
		t.Skip("64-bit: StartEmbedded runs (every other test of the package)")
	}
	_, err := StartEmbedded(EmbeddedConfig{Name: "n1", StoreDir: t.TempDir()})
	require.ErrorIs(t, err, ErrEmbedded)
	require.ErrorContains(t, err, "32-bit")
}

// TestEmbeddedMonitor: with MonitorAddr the embedded server answers
// nats-server's /healthz and /jsz there; without, it has no endpoint.
func TestEmbeddedMonitor(t *testing.T) {
	if Embedded32Bit {
		t.Skip("no embedded nats-server on a 32-bit platform (Embedded32Bit)")
	}
	for _, tc := range []struct {
		name, addr string
	}{{"off", ""}, {"on", "127.0.0.1:0"}} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := StartEmbedded(EmbeddedConfig{Name: "n1", StoreDir: t.TempDir(), MonitorAddr: tc.addr})
			require.NoError(t, err)
			t.Cleanup(e.Shutdown)
			if tc.addr == "" {
				require.Nil(t, e.MonitorAddr())
				return
			}
			require.NotNil(t, e.MonitorAddr())
			hc := &http.Client{Timeout: time.Minute}
			for path, want := range map[string]string{"/healthz": `"status":"ok"`, "/jsz": `"streams"`} {
				resp, err := hc.Get("http://" + e.MonitorAddr().String() + path)
				require.NoError(t, err)
				body, err := io.ReadAll(resp.Body)
				require.NoError(t, errors.Join(err, resp.Body.Close()))
				require.Equal(t, http.StatusOK, resp.StatusCode, path)
				require.Contains(t, string(body), want, path)
			}
		})
	}
	_, err := StartEmbedded(EmbeddedConfig{Name: "n1", StoreDir: t.TempDir(), MonitorAddr: "127.0.0.1"})
	require.ErrorIs(t, err, ErrEmbedded)
}

// TestEmbeddedLogf: with Logf the embedded server's warnings and errors
// reach it, prefixed; its notices do not.
func TestEmbeddedLogf(t *testing.T) {
	if Embedded32Bit {
		t.Skip("no embedded nats-server on a 32-bit platform (Embedded32Bit)")
	}
	var lines syncLines
	e, err := StartEmbedded(EmbeddedConfig{Name: "n1", StoreDir: t.TempDir(), Logf: lines.printf})
	require.NoError(t, err)
	t.Cleanup(e.Shutdown)
	e.srv.Noticef("a notice %d", 1)
	e.srv.Warnf("a warning %d", 2)
	e.srv.Errorf("an error %d", 3)
	require.Equal(t, 1, lines.count("nats-server: warning: a warning 2"), "logged: %v", lines.all())
	require.Equal(t, 1, lines.count("nats-server: error: an error 3"), "logged: %v", lines.all())
	require.Zero(t, lines.count("a notice"), "logged: %v", lines.all())
}
