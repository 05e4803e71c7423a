package mmapbloom

import (
	"fmt"

	"github.com/mmapbloom/mmapbloom/format"
)

// CreateLike makes a new, empty filter file at path with the shape of an
// existing filter's header: the same format, layout, hash scheme, seed, m,
// k, n and p, everything Merge requires equal, so that filters built apart
// (one process per shard of the input, say) can be merged into one. The
// header is typically another filter's Header(), or format.Decode of its
// first 64 bytes; its count, sealed flag and data crc are not copied. Of
// opts only Overwrite applies; any other field set is ErrBadOptions.
// Errors as for Create and CreateWithMK.
func CreateLike(path string, like format.Header, opts *CreateOptions) (*Filter, error) {
	o := CreateOptions{
		Format: like.Version, Layout: like.Layout, Scheme: like.Scheme,
		Seed: like.Seed, FixedSeed: true,
	}
	if opts != nil {
		if *opts != (CreateOptions{Overwrite: opts.Overwrite}) {
			return nil, fmt.Errorf("mmapbloom: create %s like another filter: only Overwrite may be set: %w", path, ErrBadOptions)
		}
		o.Overwrite = opts.Overwrite
	}
	return create(path, o, like.M, like.K, like.N, like.P)
}
