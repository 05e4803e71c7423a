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
