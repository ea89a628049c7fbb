package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// page is one page of the article-extraction benchmark.
type page struct {
	ID, URL, Truth string
	HTML           []byte
}

// loadPages reads a directory in the benchmark's layout:
// ground-truth.json and html/<id>.html.gz (or .html).
func loadPages(dir string) ([]page, error) {
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
	pages := make([]page, 0, len(ids))
	for _, id := range ids {
		h, err := readHTML(filepath.Join(dir, "html", id))
		if err != nil {
			return nil, fmt.Errorf("page %s: %w", id, err)
		}
		pages = append(pages, page{ID: id, URL: truth[id].URL, Truth: truth[id].ArticleBody, HTML: h})
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
