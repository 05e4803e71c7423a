package testkit

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// recorder is a testing.TB that records Fatalf and Skipf instead of
// stopping the test.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper()                        {}
func (r *recorder) Fatalf(format string, a ...any) { r.fatal = fmt.Sprintf(format, a...) }
func (r *recorder) Skipf(format string, a ...any)  { r.skip = fmt.Sprintf(format, a...) }

// Missing shared data fails a test under CI=true and skips it elsewhere;
// present data is found under MMAPBLOOM_SHARED.
func TestShared(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("MMAPBLOOM_SHARED", dir)
	for _, ci := range []string{"true", ""} {
		t.Setenv("CI", ci)
		r := &recorder{TB: t}
		Shared(r, "vectors/none.bin")
		if ci == "true" {
			require.Contains(t, r.fatal, "vectors/none.bin")
			require.Empty(t, r.skip)
		} else {
			require.Contains(t, r.skip, "vectors/none.bin")
			require.Empty(t, r.fatal)
		}
	}
	r := &recorder{TB: t}
	require.Equal(t, dir, Shared(r, "."))
	require.Empty(t, r.fatal+r.skip)
}
