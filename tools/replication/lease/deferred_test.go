package lease

import (
	"context"
	"errors"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixedKV answers every operation with rev and no error, counting the
// calls.
type fixedKV struct {
	rev   uint64
	calls int
}

func (f *fixedKV) Get(context.Context, string) (jetstream.KeyValueEntry, error) {
	f.calls++
	return nil, nil
}

func (f *fixedKV) Create(context.Context, string, []byte, ...jetstream.KVCreateOpt) (uint64, error) {
	f.calls++
	return f.rev, nil
}

func (f *fixedKV) Update(context.Context, string, []byte, uint64) (uint64, error) {
	f.calls++
	return f.rev, nil
}

func (f *fixedKV) Delete(context.Context, string, ...jetstream.KVDeleteOpt) error {
	f.calls++
	return nil
}

// Each operation of a Deferred returns the open's error while the
// bucket cannot be opened, tries the open again at the next operation,
// and once it succeeded goes to the bucket without opening again.
func TestDeferred(t *testing.T) {
	errNoConn := errors.New("no connection yet")
	ops := map[string]func(KV) (uint64, error){
		"Get": func(kv KV) (uint64, error) { _, err := kv.Get(context.Background(), "k"); return 7, err },
		"Create": func(kv KV) (uint64, error) {
			return kv.Create(context.Background(), "k", []byte("v"))
		},
		"Update": func(kv KV) (uint64, error) { return kv.Update(context.Background(), "k", []byte("v"), 3) },
		"Delete": func(kv KV) (uint64, error) { return 7, kv.Delete(context.Background(), "k") },
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			bucket := &fixedKV{rev: 7}
			opens, ready := 0, false
			d := NewDeferred(func(context.Context) (KV, error) {
				opens++
				if !ready {
					return nil, errNoConn
				}
				return bucket, nil
			})
			for range 2 {
				_, err := op(d)
				require.ErrorIs(t, err, errNoConn)
			}
			assert.Equal(t, 2, opens, "an open that failed is tried at the next operation")
			ready = true
			for range 2 {
				rev, err := op(d)
				require.NoError(t, err)
				assert.Equal(t, uint64(7), rev)
			}
			assert.Equal(t, 3, opens, "opened once")
			assert.Equal(t, 2, bucket.calls)
		})
	}
}
