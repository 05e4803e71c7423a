// Package kerneltest runs a test under each probe kernel of package
// kernel in turn, for the cross-checks of the kernels and of the batch
// calls built on them.
package kerneltest

import (
	"slices"
	"strings"
	"testing"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/kernel"
)

// ForEach runs fn as subtest impl=NAME with each kernel made active
// in turn, restores the choice afterwards and logs the kernels it ran. A
// kernel this CPU or build cannot run is a skipped subtest whose message
// names the CPU features it lacks (kernel.WhyNot).
func ForEach(t *testing.T, fn func(t *testing.T)) {
	t.Helper()
	saved := kernel.Active
	t.Cleanup(func() { kernel.Active = saved })
	var ran []string
	for _, k := range kernel.All {
		t.Run("impl="+k.String(), func(t *testing.T) {
			if !slices.Contains(kernel.Available, k) {
				t.Skipf("kernel %v not run: %s", k, kernel.WhyNot(k))
			}
			kernel.Active = k
			fn(t)
		})
		if slices.Contains(kernel.Available, k) {
			ran = append(ran, k.String())
		}
	}
	t.Logf("kernels run: %s", strings.Join(ran, ", "))
}
