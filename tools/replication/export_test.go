package replication

import natsserver "github.com/nats-io/nats-server/v2/server"

// What the black-box tests of package replication_test (which may
// import natstest) reach of the internal test helpers and the server.

// NewMem is newMem for package replication_test.
var NewMem = newMem

// Has is has for package replication_test.
func (m *memApplier) Has(key, item string) bool { return m.has(key, item) }

// AddRec is addRec for package replication_test.
var AddRec = addRec

// NATSServer is the embedded server itself (routes, logger).
func (e *Embedded) NATSServer() *natsserver.Server { return e.srv }
