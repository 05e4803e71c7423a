package replication

import (
	"crypto/tls"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
)

// ClientAuth is how a node's NATS connection proves who it is and
// encrypts, in the NATS Go client's own options: at most one of CredsFile,
// NKeyFile and User; TLS with any of them. The zero value connects
// in plain text with no credentials.
type ClientAuth struct {
	// CredsFile is a .creds file: a user JWT and its NKey seed
	// (nats.UserCredentials; an operator-mode account).
	CredsFile string
	// NKeyFile is a file holding a user's NKey seed, "SU..."
	// (nats.NkeyOptionFromSeed).
	NKeyFile string
	// User and Password are a user's name and password (nats.UserInfo).
	User, Password string
	// TLS, when set, makes the connection TLS (nats.Secure): RootCAs
	// checks the server's certificate, Certificates is the client
	// certificate a server with verify asks for.
	TLS *tls.Config
}

// ErrAuth is returned (wrapped) for a ClientAuth naming more than one
// kind of credentials, or a file the NATS Go client cannot read.
var ErrAuth = errors.New("replication: NATS credentials")

// options are a's options of the NATS Go client.
func (a ClientAuth) options() ([]nats.Option, error) {
	var opts []nats.Option
	kinds := 0
	if a.CredsFile != "" {
		opts, kinds = append(opts, nats.UserCredentials(a.CredsFile)), kinds+1
	}
	if a.NKeyFile != "" {
		o, err := nats.NkeyOptionFromSeed(a.NKeyFile)
		if err != nil {
			return nil, fmt.Errorf("%w: nkey file %s: %w", ErrAuth, a.NKeyFile, err)
		}
		opts, kinds = append(opts, o), kinds+1
	}
	if a.User != "" {
		opts, kinds = append(opts, nats.UserInfo(a.User, a.Password)), kinds+1
	}
	if kinds > 1 {
		return nil, fmt.Errorf("%w: give one of a creds file, an nkey seed file, a user and password", ErrAuth)
	}
	if a.TLS != nil {
		opts = append(opts, nats.Secure(a.TLS))
	}
	return opts, nil
}
