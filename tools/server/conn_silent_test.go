package server

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"log"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testTLS returns a server TLS config with a self-signed certificate for
// 127.0.0.1 (no client certificate asked) and a client config trusting it.
func testTLS(t *testing.T) (srv, cli *tls.Config) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, IsCA: true, BasicConstraintsValid: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	srv = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}, MinVersion: tls.VersionTLS12}
	return srv, &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}

// startPlainAndTLS starts a server with cfg on a plain and a TLS
// listener of 127.0.0.1, stopped when the test ends, and returns it,
// both addresses and the clients' TLS config.
func startPlainAndTLS(t *testing.T, cfg Config) (s *Server, plain, secure string, cli *tls.Config) {
	t.Helper()
	cfg.Dir, cfg.Log, cfg.FilterIdle = t.TempDir(), log.New(io.Discard, "", 0), -1
	s, err := New(cfg)
	require.NoError(t, err)
	srv, cli := testTLS(t)
	ln, err := s.ListenTLS("127.0.0.1:0", false, srv)
	require.NoError(t, err)
	plain = serveOn(t, s)
	serveLn(t, s, ln)
	return s, plain, ln.Addr().String(), cli
}

// silentConn opens a TCP connection to addr that never sends a byte (a
// TLS client that never sends its ClientHello, a half-open peer).
func silentConn(t *testing.T, addr string) net.Conn { return rawConn(t, addr) }

// halfOpenConn opens a TCP connection to addr and shuts down its write
// side at once (a peer gone half away: it sent FIN and still reads).
func halfOpenConn(t *testing.T, addr string) net.Conn {
	nc := rawConn(t, addr)
	require.NoError(t, nc.(*net.TCPConn).CloseWrite())
	return nc
}

// slowConn opens a TCP connection to addr that sends the first bytes of
// a request (or of a TLS record) and then stalls.
func slowConn(t *testing.T, addr string) net.Conn {
	nc := rawConn(t, addr)
	_, err := nc.Write([]byte{0x16, 0x03}) // a TLS record's first bytes; as RESP, an unknown inline command
	require.NoError(t, err)
	return nc
}

// refusedPromptly checks that a new plain connection past maxclients
// gets Redis's refusal: the accept loops and the server's lock are free.
func refusedPromptly(t *testing.T, plain string) {
	t.Helper()
	nc := rawConn(t, plain) // its 30 s deadline fails a frozen server
	assert.Equal(t, "-ERR max number of clients reached\r\n", closedAfter(t, nc))
}

// TestSilentClientsFreezeNothing: at maxclients, clients that send
// nothing, stall mid-request or mid-handshake, on the plain or the TLS
// port, hold neither the accept loops nor the server's lock: a new
// client is refused with Redis's error, CONFIG SET timeout reaches a
// connection already waiting, and Shutdown returns.
func TestSilentClientsFreezeNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		open func(*testing.T, string) net.Conn
		tls  bool
	}{
		{"plain silent", silentConn, false},
		{"plain slow", slowConn, false},
		{"tls silent", silentConn, true},
		{"tls slow", slowConn, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, plain, secure, _ := startPlainAndTLS(t, Config{MaxClients: 2, ClientIdle: -1})
			addr := plain
			if tc.tls {
				addr = secure
			}
			held := []net.Conn{tc.open(t, addr), tc.open(t, addr)}
			require.Eventually(t, func() bool { return s.clientCount() == 2 }, time.Minute, 10*time.Millisecond)
			over := tc.open(t, secure) // past maxclients on the TLS port
			refusedPromptly(t, plain)
			_ = over
			done := make(chan error, 1)
			go func() { done <- s.Shutdown() }()
			select {
			case err := <-done:
				require.NoError(t, err)
			case <-time.After(time.Minute):
				t.Fatal("Shutdown did not return within a minute")
			}
			for _, nc := range held {
				_, err := io.ReadAll(nc)
				require.NoError(t, err, "closed by Shutdown")
			}
		})
	}
}

// TestHalfOpenClientsClosed: a client that shuts down its write side
// (FIN sent, still reading), before a request or mid-handshake on the
// TLS port, is closed by the server with no idle timeout set, so it
// holds no slot of maxclients; Shutdown then returns.
func TestHalfOpenClientsClosed(t *testing.T) {
	s, plain, secure, _ := startPlainAndTLS(t, Config{MaxClients: 2, ClientIdle: -1})
	for _, addr := range []string{plain, secure, plain, secure} {
		nc := halfOpenConn(t, addr)
		_, err := io.ReadAll(nc)
		require.NoError(t, err, "closed by the server, before the test's own deadline")
	}
	require.Eventually(t, func() bool { return s.clientCount() == 0 }, time.Minute, 10*time.Millisecond)
	nc := rawConn(t, plain)
	_, err := nc.Write([]byte("PING\r\n"))
	require.NoError(t, err)
	line, err := bufio.NewReader(nc).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "+PONG\r\n", line, "served: the half-open clients hold no slot")
	require.NoError(t, s.Shutdown())
}

// TestTLSHandshakeDeadline: a TLS client that never ends its handshake
// is closed after Config.TLSHandshake even with no idle timeout, and a
// real TLS client is served meanwhile.
func TestTLSHandshakeDeadline(t *testing.T) {
	_, _, secure, cli := startPlainAndTLS(t, Config{ClientIdle: -1, TLSHandshake: 5 * time.Second}) // a real client handshakes well within it at load
	for _, open := range []func(*testing.T, string) net.Conn{silentConn, slowConn} {
		nc := open(t, secure)
		_, err := io.ReadAll(nc)
		require.NoError(t, err, "closed by the handshake deadline, before the test's own")
	}
	rdb := redis.NewClient(&redis.Options{Addr: secure, TLSConfig: cli, Protocol: 2, DialTimeout: 30 * time.Second,
		ReadTimeout: time.Minute, MaxRetries: -1})
	defer rdb.Close()
	require.Equal(t, "PONG", rdb.Ping(ctx(t)).Val())
}

// TestTimeoutReachesWaitingClients: CONFIG SET timeout applies to a
// connection already blocked in a read with no deadline (timeout 0), as
// Redis's client cron closes every idle client.
func TestTimeoutReachesWaitingClients(t *testing.T) {
	_, addr := startServer(t, Config{ClientIdle: -1})
	waiting := rawConn(t, addr)
	_, err := waiting.Write([]byte("PING\r\n"))
	require.NoError(t, err)
	line, err := bufio.NewReader(waiting).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "+PONG\r\n", line)
	rdb, c := dial(t, addr, ""), ctx(t)
	require.NoError(t, rdb.ConfigSet(c, "timeout", "1").Err())
	assert.Equal(t, "", closedAfter(t, waiting), "closed when idle")
}

// clientCount is the number of connections the server serves.
func (s *Server) clientCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.clients)
}
