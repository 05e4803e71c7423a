package replication

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// ClientAuth gives one nats.go option per kind of credentials, one for
// TLS, and refuses two kinds at once or an NKey file without a seed.
func TestClientAuthOptions(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.nk")
	require.NoError(t, os.WriteFile(bad, []byte("not a seed\n"), 0o600))
	for _, tc := range []struct {
		name string
		auth ClientAuth
		opts int
		err  error
	}{
		{"none", ClientAuth{}, 0, nil},
		{"creds", ClientAuth{CredsFile: "node.creds"}, 1, nil},
		{"user and TLS", ClientAuth{User: "u", Password: "p", TLS: &tls.Config{}}, 2, nil},
		{"creds and user", ClientAuth{CredsFile: "node.creds", User: "u"}, 0, ErrAuth},
		{"nkey without a seed", ClientAuth{NKeyFile: bad}, 0, ErrAuth},
		{"missing nkey file", ClientAuth{NKeyFile: filepath.Join(dir, "none.nk")}, 0, ErrAuth},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts, err := tc.auth.options()
			require.ErrorIs(t, err, tc.err)
			require.Len(t, opts, tc.opts)
		})
	}
}
