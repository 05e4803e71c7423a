// Package docs holds no code: its test (docs_test.go) checks that the
// repository's documents agree with its tree. The package table and the
// text tree of ARCHITECTURE.md name every package and only those; every
// file a Go comment names exists; every file prefix of tools/server is in
// its doc.go's # Files section; every relative link of a Markdown file
// reaches a file, and a heading where it names one.
package docs
