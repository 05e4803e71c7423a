// Package python holds the library's interoperability tests with the
// Python package in ../../../python (tests only): the golden files that
// Go writes and the Python tests read (testdata/py, rewritten with
// `go test ./mmapbloom/tests/python -run TestPythonGolden -update`), and
// Python processes beside Go ones on one filter or set
// (python_test.go, python_set_test.go). They need a python3 that
// imports xxhash: with CI=true a missing one fails the tests, otherwise
// they skip. They run on Linux.
package python
