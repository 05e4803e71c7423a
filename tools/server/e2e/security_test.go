package e2e_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// certs are the PEM files of a test CA, a server certificate for
// 127.0.0.1 (also usable as a client's, as a replica presents it) and a
// client certificate, all made by the test.
type certs struct{ dir, ca, serverCert, serverKey, clientCert, clientKey string }

// makeCerts writes a fresh CA and two certificates it signed into a
// temporary directory.
func makeCerts(t *testing.T) certs {
	t.Helper()
	dir := t.TempDir()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mmapbloom test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	caCert, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	c := certs{dir: dir, ca: writePEM(t, dir, "ca.pem", "CERTIFICATE", caDER)}
	leaf := func(name string, serial int64, usage []x509.ExtKeyUsage) (string, string) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: usage,
			IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
		require.NoError(t, err)
		kder, err := x509.MarshalECPrivateKey(key)
		require.NoError(t, err)
		return writePEM(t, dir, name+".pem", "CERTIFICATE", der), writePEM(t, dir, name+".key", "EC PRIVATE KEY", kder)
	}
	c.serverCert, c.serverKey = leaf("server", 2, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth})
	c.clientCert, c.clientKey = leaf("client", 3, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth})
	return c
}

func writePEM(t *testing.T, dir, name, typ string, der []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600))
	return path
}

// tlsArgs are the serve flags of TLS only (no plain port) with c.
func (c certs) tlsArgs() []string {
	return []string{"--addr", "", "--tls-port", "127.0.0.1:0", "--tls-cert-file", c.serverCert,
		"--tls-key-file", c.serverKey, "--tls-ca-cert-file", c.ca}
}

// clientTLS is a go-redis TLS config trusting c's CA, with the client
// certificate when withCert.
func (c certs) clientTLS(t *testing.T, withCert bool) *tls.Config {
	t.Helper()
	pemCA, err := os.ReadFile(c.ca)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(pemCA))
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if withCert {
		cert, err := tls.LoadX509KeyPair(c.clientCert, c.clientKey)
		require.NoError(t, err)
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg
}

// securityACL is the ACL file of the tests: an administrator, and a
// crawler that may only use BF.* on seen:* keys, loads excepted.
const securityACL = "user default on >adminpw ~* &* +@all\n" +
	"user crawler on >crawlpw ~seen:* resetchannels -@all +@bloom -bf.loadchunk\n"

const (
	noPermKey = "NOPERM this user has no permissions to access one of the keys used as arguments"
	noPermCmd = "NOPERM this user has no permissions to run the 'bf.loadchunk' command"
	wrongPass = "WRONGPASS invalid username-password pair or user is disabled."
)

// TestServeTLSGoRedis: go-redis over TLS (TLSConfig, Username) as the
// crawler: its commands run, the others are refused with Redis's
// NOPERM texts; without a client certificate (tls-auth-clients yes) or
// in plain text nothing is served.
func TestServeTLSGoRedis(t *testing.T) {
	c := makeCerts(t)
	acl := testkit.WriteFile(t, t.TempDir(), "users.acl", []byte(securityACL))
	s := startServe(t, t.TempDir(), nil, append(c.tlsArgs(), "--aclfile", acl)...)
	ctx := t.Context()
	dial := func(user, pass string, withCert bool) *redis.Client {
		rdb := redis.NewClient(&redis.Options{Addr: s.addr, Username: user, Password: pass,
			TLSConfig: c.clientTLS(t, withCert), MaxRetries: -1, DialTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second})
		t.Cleanup(func() { _ = rdb.Close() })
		return rdb
	}
	crawler := dial("crawler", "crawlpw", true)
	require.NoError(t, crawler.BFAdd(ctx, "seen:a", "https://example.com/").Err())
	assert.True(t, crawler.BFExists(ctx, "seen:a", "https://example.com/").Val())
	assert.EqualError(t, crawler.BFAdd(ctx, "other", "x").Err(), noPermKey)
	assert.EqualError(t, crawler.Do(ctx, "BF.LOADCHUNK", "seen:b", 1, "x").Err(), noPermCmd)
	assert.EqualError(t, crawler.Del(ctx, "seen:a").Err(), "NOPERM this user has no permissions to run the 'del' command")
	assert.EqualError(t, dial("crawler", "wrong", true).Ping(ctx).Err(), wrongPass)
	assert.Error(t, dial("crawler", "crawlpw", false).Ping(ctx).Err(), "no client certificate")
	plain := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1, ReadTimeout: 5 * time.Second})
	defer plain.Close()
	assert.Error(t, plain.Ping(ctx).Err(), "plain text on the TLS port")
	admin := dial("default", "adminpw", true)
	assert.Equal(t, int64(1), admin.Del(ctx, "seen:a").Val())
}

// TestServeTLSRedisCLI: redis-cli --tls --cacert (and the client
// certificate) as the crawler, refused where its rules say so.
func TestServeTLSRedisCLI(t *testing.T) {
	cli := needTool(t, "redis-cli", "--version")
	c := makeCerts(t)
	acl := testkit.WriteFile(t, t.TempDir(), "users.acl", []byte(securityACL))
	s := startServe(t, t.TempDir(), nil, append(c.tlsArgs(), "--aclfile", acl)...)
	run := func(pass string, args ...string) string {
		cmd := testkit.Command(t, cli, append([]string{"--tls", "--cacert", c.ca, "--cert", c.clientCert, "--key", c.clientKey,
			"-h", "127.0.0.1", "-p", port(s.addr), "--user", "crawler"}, args...)...)
		cmd.Env = append(os.Environ(), "REDISCLI_AUTH="+pass)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		return strings.TrimSpace(string(out))
	}
	assert.Equal(t, "1", run("crawlpw", "BF.ADD", "seen:a", "x"))
	assert.Equal(t, "1", run("crawlpw", "BF.EXISTS", "seen:a", "x"))
	assert.Equal(t, noPermKey, run("crawlpw", "BF.ADD", "other", "x"))
	assert.Equal(t, noPermCmd, run("crawlpw", "BF.LOADCHUNK", "seen:b", "1", "x"))
	assert.Contains(t, run("wrong", "PING"), wrongPass)
}

// TestServeTLSRedisPy: redis-py with ssl=True and username= as the
// crawler (testdata/serve/redis_py_tls.py prints each reply or error).
func TestServeTLSRedisPy(t *testing.T) {
	py := needTool(t, "/usr/bin/python3", "-c", "import redis")
	c := makeCerts(t)
	acl := testkit.WriteFile(t, t.TempDir(), "users.acl", []byte(securityACL))
	s := startServe(t, t.TempDir(), nil, append(c.tlsArgs(), "--aclfile", acl)...)
	out, err := testkit.Command(t, py, filepath.Join("testdata", "serve", "redis_py_tls.py"), "127.0.0.1", port(s.addr),
		c.ca, c.clientCert, c.clientKey).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, strings.Join([]string{
		"add 1", "exists 1", "other NoPermissionError " + strings.TrimPrefix(noPermKey, "NOPERM "),
		"loadchunk NoPermissionError " + strings.TrimPrefix(noPermCmd, "NOPERM "),
		"wrongpass ResponseError " + wrongPass, // redis-py 4.3 has no class for WRONGPASS
	}, "\n"), strings.TrimSpace(string(out)))
}

// TestServeSecretsStayHidden: passwords given by environment variable
// or file are neither in the process's command line nor in its log,
// and ACL LIST shows their SHA-256 only.
func TestServeSecretsStayHidden(t *testing.T) {
	pw := testkit.WriteFile(t, t.TempDir(), "masterauth", []byte("master-secret\n"))
	s := startServe(t, t.TempDir(), []string{"MMAPBLOOM_REQUIREPASS=env-secret"}, "--masterauth-file", pw)
	cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(s.cmd.Process.Pid), "cmdline"))
	require.NoError(t, err)
	require.Contains(t, string(cmdline), "--masterauth-file", "the right process")
	for _, secret := range []string{"env-secret", "master-secret"} {
		assert.NotContains(t, string(cmdline), secret)
	}
	rdb, c := goRedis(t, s.addr, "env-secret")
	list, err := rdb.Do(c, "ACL", "LIST").StringSlice()
	require.NoError(t, err)
	sum := sha256.Sum256([]byte("env-secret"))
	assert.Equal(t, []string{"user default on #" + hex.EncodeToString(sum[:]) + " ~* &* +@all"}, list)
	require.NoError(t, s.cmd.Process.Signal(os.Interrupt))
	for line := range s.logs {
		assert.NotContains(t, line, "secret")
	}
}

// TestServeProtectedModeUsers: a non-loopback address is refused while
// the default user needs no password, even with other users, unless
// --protected-mode no.
func TestServeProtectedModeUsers(t *testing.T) {
	acl := testkit.WriteFile(t, t.TempDir(), "users.acl", []byte("user default on nopass ~* +@all\nuser a on >a ~* +@all\n"))
	requireRefused(t, "refusing to listen on a non-loopback address without a password",
		"serve", "--dir", t.TempDir(), "--addr", "0.0.0.0:0", "--aclfile", acl)
	s := startServe(t, t.TempDir(), nil, "--addr", "0.0.0.0:0", "--protected-mode", "no")
	assert.True(t, strings.HasPrefix(s.addr, "[::]:") || strings.HasPrefix(s.addr, "0.0.0.0:"), s.addr)
}

// TestServeTLSReplica: a replica pulls its primary over TLS (the
// addresses of the cluster config are the TLS ports) as the user
// --masteruser names, with the password from --masterauth-file; a user
// without the pull's commands gets no copy.
func TestServeTLSReplica(t *testing.T) {
	c := makeCerts(t)
	acl := testkit.WriteFile(t, t.TempDir(), "users.acl", []byte(securityACL+
		"user repl on >replpw ~* resetchannels -@all +info +scan +bf.scandump +mbf.setdump +mbf.buckets +mbf.bucketdump\n"))
	auth := testkit.WriteFile(t, t.TempDir(), "masterauth", []byte("replpw\n"))
	args := append(c.tlsArgs(), "--aclfile", acl, "--tls-replication", "yes", "--masteruser", "repl",
		"--masterauth-file", auth, "--pull-interval", "1h")
	nodes, _ := startServeNodes(t, []string{"0-16383", "replica-of node1"}, args...)
	dial := func(addr string) *redis.Client {
		rdb := redis.NewClient(&redis.Options{Addr: addr, Username: "default", Password: "adminpw", Protocol: 2,
			TLSConfig: c.clientTLS(t, true), MaxRetries: -1, PoolSize: 1, ReadTimeout: time.Minute})
		t.Cleanup(func() { _ = rdb.Close() })
		return rdb
	}
	ctx := t.Context()
	primary, replica := dial(nodes[0].addr), dial(nodes[1].addr)
	require.NoError(t, primary.BFAdd(ctx, "seen:a", "https://example.com/").Err())
	require.NoError(t, primary.Do(ctx, "BF.RESERVE", "fixed", 0.01, 1000, "NONSCALING").Err())
	require.NoError(t, primary.BFAdd(ctx, "fixed", "x").Err())
	require.NoError(t, replica.Do(ctx, "MBF.PULL").Err())
	require.NoError(t, replica.ReadOnly(ctx).Err())
	assert.True(t, replica.BFExists(ctx, "seen:a", "https://example.com/").Val(), "pulled over TLS")
	assert.True(t, replica.BFExists(ctx, "fixed", "x").Val())

	require.NoError(t, primary.Do(ctx, "ACL", "SETUSER", "repl", "-bf.scandump").Err())
	require.NoError(t, primary.BFAdd(ctx, "fixed2", "x").Err())
	err := replica.Do(ctx, "MBF.PULL").Err()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "NOPERM this user has no permissions to run the 'bf.scandump' command")
}

// TestServeTLSSilentClientsSIGTERM: at --maxclients, TCP connections to
// the TLS port that never send a ClientHello (one served, two past the
// limit) freeze nothing: a real TLS client already connected goes on
// being served, and SIGTERM stops the server, which exits 0 with its
// filter synced.
func TestServeTLSSilentClientsSIGTERM(t *testing.T) {
	c := makeCerts(t)
	dir := t.TempDir()
	s := startServe(t, dir, nil, append(c.tlsArgs(), "--maxclients", "2", "--timeout=-1s")...)
	rdb := redis.NewClient(&redis.Options{Addr: s.addr, TLSConfig: c.clientTLS(t, true), MaxRetries: -1, PoolSize: 1,
		DialTimeout: 30 * time.Second, ReadTimeout: 30 * time.Second})
	defer rdb.Close()
	ctx := t.Context()
	require.NoError(t, rdb.BFAdd(ctx, "seen", "https://example.com/").Err())
	for range 3 { // the second client, then two past maxclients
		nc, err := net.DialTimeout("tcp", s.addr, 30*time.Second)
		require.NoError(t, err)
		defer nc.Close()
	}
	require.NoError(t, rdb.BFAdd(ctx, "seen", "https://example.org/").Err(), "served beside the silent clients")
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	select {
	case err := <-exited:
		require.NoError(t, err, "exit status 0")
	case <-time.After(2 * time.Minute):
		t.Fatal("no exit within 2 minutes of SIGTERM")
	}
	f, err := mmapbloom.OpenSet(filepath.Join(dir, "seen.bfset"), &mmapbloom.OpenOptions{ReadOnly: true})
	require.NoError(t, err)
	defer f.Close()
	n, err := f.Count()
	require.NoError(t, err)
	assert.EqualValues(t, 2, n, "both adds synced at exit")
}

// TestSecurityDocCrawler: docs/security.md's ACL example, loaded as it
// is written (the admin's hash placeholder replaced): its crawler can
// PING (clients check connections with it), add and test seen:* keys,
// and nothing else.
func TestSecurityDocCrawler(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(testkit.RepoRoot(), "docs", "security.md"))
	require.NoError(t, err)
	var users []string
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "user default on #<sha256") || strings.HasPrefix(line, "user crawler ") {
			users = append(users, strings.Replace(line, "#<sha256 of the admin password>", ">adminpw", 1))
		}
	}
	require.Len(t, users, 2, "the example's two users")
	acl := testkit.WriteFile(t, t.TempDir(), "users.acl", []byte(strings.Join(users, "\n")+"\n"))
	s := startServe(t, t.TempDir(), nil, "--aclfile", acl)
	crawler := redis.NewClient(&redis.Options{Addr: s.addr, Username: "crawler", Password: "crawlpw", MaxRetries: -1,
		DialTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second})
	t.Cleanup(func() { _ = crawler.Close() })
	ctx := t.Context()
	pong := crawler.Ping(ctx)
	assert.Equal(t, "PONG", pong.Val(), pong.Err())
	require.NoError(t, crawler.BFAdd(ctx, "seen:a", "https://example.com/").Err())
	assert.True(t, crawler.BFExists(ctx, "seen:a", "https://example.com/").Val())
	assert.EqualError(t, crawler.BFAdd(ctx, "other", "x").Err(), noPermKey)
	assert.EqualError(t, crawler.Do(ctx, "BF.LOADCHUNK", "seen:b", 1, "x").Err(), noPermCmd)
	assert.EqualError(t, crawler.Del(ctx, "seen:a").Err(), "NOPERM this user has no permissions to run the 'del' command")
}
