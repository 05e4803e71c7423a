//go:build amd64 && gc && !purego

package mmapbloom

import (
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// whyNot returns why this CPU cannot run kernel k, naming the CPU
// features it lacks, or "" when it can.
func whyNot(k kernel) string {
	for _, s := range simdKernels {
		if s.kernel != k {
			continue
		}
		var lacks []string
		for _, f := range s.features {
			if !cpuid.CPU.Supports(f) {
				lacks = append(lacks, f.String())
			}
		}
		if len(lacks) > 0 {
			return "this CPU lacks " + strings.Join(lacks, " and ")
		}
	}
	return ""
}
