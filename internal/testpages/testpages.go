// Package testpages reads the repository's test pages for the tests of
// other packages: the extraction tests' HTML and converted Markdown, on
// which the text stages check that a faster reading gives the same
// output as the straightforward one.
package testpages

import (
	"os"
	"path/filepath"
	"testing"
)

// Converted matches the extraction tests' converted pages (Markdown);
// Pages matches their HTML and Markdown both. Both are relative to the
// repository's root.
const (
	Converted = "sources/extract/testdata/*/*.md"
	Pages     = "sources/extract/testdata/*/*"
)

// Read returns the files matching pattern under root (the repository's
// root, relative to the calling test's directory), by path. A pattern
// that matches nothing fails the test: a comparison over no page proves
// nothing.
func Read(tb testing.TB, root, pattern string) map[string]string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pattern)))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no test pages match %s under %s: %v", pattern, root, err)
	}
	out := make(map[string]string, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out[f] = string(b)
	}
	return out
}
