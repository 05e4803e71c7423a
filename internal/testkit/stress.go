package testkit

import "os"

// Runs returns how many runs a repeated test makes: normal, or stressed
// when the environment has MMAPBLOOM_STRESS=1 (the long loops kept out
// of CI).
func Runs(normal, stressed int) int {
	if os.Getenv("MMAPBLOOM_STRESS") == "1" {
		return stressed
	}
	return normal
}
