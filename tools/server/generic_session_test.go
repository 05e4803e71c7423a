package server

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestResetDeauthenticates: RESET runs the connection as the default
// user again, which needs AUTH when it has a password (Redis 7.0); it is
// answered before AUTH and inside MULTI.
func TestResetDeauthenticates(t *testing.T) {
	_, addr := startServer(t, Config{Password: "pw"})
	c := dialRaw(t, addr)
	for _, step := range []struct{ req, want string }{
		{"RESET\r\n", "+RESET\r\n"},
		{"AUTH pw\r\n", "+OK\r\n"},
		{"CLIENT SETNAME me\r\n", "+OK\r\n"},
		{"MULTI\r\n", "+OK\r\n"},
		{"RESET\r\n", "+RESET\r\n"},
		{"PING\r\n", "-NOAUTH Authentication required.\r\n"},
		{"AUTH pw\r\n", "+OK\r\n"},
		{"CLIENT GETNAME\r\n", "$-1\r\n"},
		{"EXEC\r\n", "-ERR EXEC without MULTI\r\n"},
	} {
		assert.Equal(t, step.want, string(c.roundTrip(t, step.req)), "%q", step.req)
	}
}
