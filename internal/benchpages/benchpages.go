// Package benchpages reads the pages of the article-extraction benchmark
// from a directory in its layout (ground-truth.json and html/<id>.html.gz
// or .html). The pages are not in the repository; the benchmarks and
// tools that use them take the directory as an argument.
package benchpages

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Page is one page of the benchmark: its id, address, human-written
// article body and HTML.
type Page struct {
	ID, URL, Truth string
	HTML           []byte
}

// EnvDir names the environment variable through which benchmarks are
// given the benchmark's directory.
const EnvDir = "FEEDPOLLER_EXTRACTION_BENCHMARK"

// FromEnv reads every page of the directory EnvDir names; set is false
// when the variable is unset, and the caller skips.
func FromEnv() (pages []Page, set bool, err error) {
	dir := os.Getenv(EnvDir)
	if dir == "" {
		return nil, false, nil
	}
	pages, err = Load(dir)
	return pages, true, err
}

// ForBenchmark is FromEnv for a benchmark: it skips b when EnvDir is
// unset (the pages are not in the repository) and fails it when the
// directory cannot be read.
func ForBenchmark(b testing.TB) []Page {
	b.Helper()
	pages, set, err := FromEnv()
	if !set {
		b.Skipf("set %s to the benchmark's data directory", EnvDir)
	}
	if err != nil {
		b.Fatal(err)
	}
	return pages
}

// Load reads every page of dir, in id order.
func Load(dir string) ([]Page, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "ground-truth.json"))
	if err != nil {
		return nil, fmt.Errorf("read ground truth: %w", err)
	}
	var truth map[string]struct {
		URL         string `json:"url"`
		ArticleBody string `json:"articleBody"`
	}
	if err := json.Unmarshal(raw, &truth); err != nil {
		return nil, fmt.Errorf("parse ground truth: %w", err)
	}
	ids := make([]string, 0, len(truth))
	for id := range truth {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	pages := make([]Page, 0, len(ids))
	for _, id := range ids {
		h, err := readHTML(filepath.Join(dir, "html", id))
		if err != nil {
			return nil, fmt.Errorf("page %s: %w", id, err)
		}
		pages = append(pages, Page{ID: id, URL: truth[id].URL, Truth: truth[id].ArticleBody, HTML: h})
	}
	return pages, nil
}

func readHTML(stem string) ([]byte, error) {
	if b, err := os.ReadFile(stem + ".html"); err == nil {
		return b, nil
	}
	gz, err := os.ReadFile(stem + ".html.gz")
	if err != nil {
		return nil, err
	}
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}
