//go:build !amd64 || !gc || purego

package mmapbloom

import "runtime"

// whyNot returns why this build cannot run kernel k, or "" when it can:
// only amd64 gc builds without the purego tag have the SIMD kernels.
func whyNot(k kernel) string {
	if k == kernelGeneric {
		return ""
	}
	return "not built: the SIMD kernels need amd64 and gc without the purego tag (this is " + runtime.GOARCH + "/" + runtime.Compiler + ")"
}
