package server

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
)

// TLS on Go's crypto/tls with Redis's settings (redis.io, "TLS"): a
// listener of its own (Redis's tls-port) beside the plain one, the
// server's certificate and key, the CA that client certificates must
// chain to, and tls-auth-clients. A replica pulls over TLS from its
// primary's address in the cluster config, which must then be the
// primary's TLS port (Redis's tls-replication), presenting the same
// certificate as a client certificate and checking the primary's
// against the CA and the host of that address.

// ErrTLS wraps every error of the TLS settings.
var ErrTLS = errors.New("TLS")

// TLSFiles are the TLS settings, named as Redis names them.
type TLSFiles struct {
	CertFile, KeyFile string // tls-cert-file, tls-key-file (PEM)
	CAFile            string // tls-ca-cert-file (PEM): the CA of client and peer certificates
	// AuthClients is tls-auth-clients: "yes" (the default: a client
	// must present a certificate the CA signed), "no" (none asked),
	// "optional" (checked when given).
	AuthClients string
}

// ServerConfig returns the TLS config of a listener, or an error naming
// the setting that is wrong.
func (f TLSFiles) ServerConfig() (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(f.CertFile, f.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("%w: tls-cert-file %s, tls-key-file %s: %w", ErrTLS, f.CertFile, f.KeyFile, err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	switch f.AuthClients {
	case "", "yes":
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	case "optional":
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
	case "no":
		return cfg, nil
	default:
		return nil, fmt.Errorf("%w: tls-auth-clients %q: want yes, no or optional", ErrTLS, f.AuthClients)
	}
	if cfg.ClientCAs, err = f.pool(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// ClientConfig returns the TLS config of a replica's pulls: the CA to
// check the primary's certificate, and the certificate to present.
func (f TLSFiles) ClientConfig() (*tls.Config, error) {
	pool, err := f.pool()
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if f.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(f.CertFile, f.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("%w: tls-cert-file %s, tls-key-file %s: %w", ErrTLS, f.CertFile, f.KeyFile, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// PeerConfig returns mutual TLS of a link between nodes (the embedded
// NATS servers' routes): the certificate presented both as a server
// and as a client, the CA checking the peer's either way, a
// certificate required of every peer whatever AuthClients says.
func (f TLSFiles) PeerConfig() (*tls.Config, error) {
	f.AuthClients = "yes"
	cfg, err := f.ServerConfig()
	if err != nil {
		return nil, err
	}
	cfg.RootCAs = cfg.ClientCAs
	return cfg, nil
}

// pool reads CAFile, required as Redis requires it to check peers.
func (f TLSFiles) pool() (*x509.CertPool, error) {
	if f.CAFile == "" {
		return nil, fmt.Errorf("%w: tls-ca-cert-file is required to check client or peer certificates (or tls-auth-clients no)", ErrTLS)
	}
	pem, err := os.ReadFile(f.CAFile)
	if err != nil {
		return nil, fmt.Errorf("%w: tls-ca-cert-file: %w", ErrTLS, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%w: tls-ca-cert-file %s: no PEM certificate in it", ErrTLS, f.CAFile)
	}
	return pool, nil
}

// ListenTLS is Listen for a TLS listener with cfg (ServerConfig).
func (s *Server) ListenTLS(addr string, unprotected bool, cfg *tls.Config) (net.Listener, error) {
	ln, err := s.Listen(addr, unprotected)
	if err != nil {
		return nil, err
	}
	return tls.NewListener(ln, cfg), nil
}
