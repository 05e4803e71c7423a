package format

import (
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// FuzzDecode checks that Decode never panics on any input and that a
// header it accepts survives Encode and Decode unchanged. For v2 every
// header byte is meaningful, so re-encoding must reproduce the input
// exactly; for v1.1 only the reserved words and file crc (32..60) may
// differ.
func FuzzDecode(f *testing.F) {
	for _, h := range []Header{
		validV1(), goldenV1, goldenV2,
		validV2(LayoutClassic, SchemeMurmurDouble),
		validV2(LayoutClassic, SchemeMurmurSeeds),
		validV2(LayoutBlocked512, SchemeXXH3Blocked),
	} {
		f.Add(encode(f, h))
	}
	f.Add([]byte{})
	f.Add([]byte("BLF\x02"))
	f.Add(make([]byte, HeaderSize))
	for _, name := range []string{"urls-n10000-p0.0001-seed0.bin", "mixed-n1000-p0.01-seed7.bin"} {
		data, err := os.ReadFile(testkit.Testdata("vectors/seed003/" + name))
		require.NoError(f, err)
		f.Add(data[:HeaderSize])
	}

	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := Decode(b)
		if err != nil {
			return
		}
		out := make([]byte, HeaderSize)
		require.NoError(t, h.Encode(out), "a decoded header must encode")
		h2, err := Decode(out)
		require.NoError(t, err, "an encoded header must decode")
		require.Equal(t, math.Float64bits(h.P), math.Float64bits(h2.P))
		h.P, h2.P = 0, 0 // NaN != NaN; compared by bits above
		require.Equal(t, h, h2)
		switch h.Version {
		case V2:
			require.Equal(t, b[:HeaderSize], out)
		case V1:
			require.Equal(t, b[:offV1Reserved], out[:offV1Reserved])
			require.Equal(t, b[offV1ByteSize:HeaderSize], out[offV1ByteSize:])
		}
	})
}
