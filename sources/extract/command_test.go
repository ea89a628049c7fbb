package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/feedpoller/feedpoller/analysis/tokens"
)

func runCommand(t *testing.T, stdin string, fetch func(context.Context, string) ([]byte, error), args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Command(context.Background(), args, strings.NewReader(stdin), &out, &errOut, fetch)
	return code, out.String(), errOut.String()
}

func noFetch(t *testing.T) func(context.Context, string) ([]byte, error) {
	return func(context.Context, string) ([]byte, error) {
		t.Error("a local file must not be fetched")
		return nil, io.EOF
	}
}

func TestCommandBodyOnlyWithFlagsAfterFile(t *testing.T) {
	path := filepath.Join("testdata", "pages", "news.html")
	want := readTestdata(t, "pages/news.md")
	for _, args := range [][]string{
		{path, "--body-only", "--url", "https://gazette.example.com/news/2026/03/river-levels-fall?utm_source=x"},
		{"--body-only", path, "https://gazette.example.com/news/2026/03/river-levels-fall?utm_source=x"}, // evaluator style
	} {
		code, out, errOut := runCommand(t, "", noFetch(t), args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if strings.TrimRight(out, "\n") != strings.TrimRight(want, "\n") {
			t.Errorf("%v: body differs\n%s", args, out)
		}
	}
}

func TestCommandMarkdownFrontMatter(t *testing.T) {
	page := readTestdata(t, "pages/news.html")
	code, out, errOut := runCommand(t, page, nil, "-", "--url", "https://gazette.example.com/news/x")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	parts := strings.SplitN(out, "---\n", 3)
	if len(parts) != 3 || parts[0] != "" {
		t.Fatalf("no front matter:\n%s", out)
	}
	var fm map[string]any
	if err := yaml.Unmarshal([]byte(parts[1]), &fm); err != nil {
		t.Fatalf("front matter is not YAML: %v", err)
	}
	for k, v := range map[string]any{
		"title": "River levels fall after a week of rain", "author": "Jo Reporter",
		"published": "2026-03-14T07:30:00Z", "url": "https://gazette.example.com/news/2026/03/river-levels-fall",
		"site_name": "Valley Gazette", "language": "en-GB",
	} {
		if fm[k] != v {
			t.Errorf("front matter %s = %v, want %v", k, fm[k], v)
		}
	}
	if !strings.HasPrefix(strings.TrimLeft(parts[2], "\n"), "The River Wend dropped") {
		t.Errorf("body does not follow the front matter:\n%s", parts[2])
	}
}

func TestCommandJSON(t *testing.T) {
	path := filepath.Join("testdata", "pages", "structure.html")
	code, out, errOut := runCommand(t, "", noFetch(t), "--format", "json", path, "--url", "https://example.org/blog/go-client.html")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Markdown string `json:"markdown"`
		Metadata struct {
			Title string `json:"title"`
		} `json:"metadata"`
		Statistics struct {
			WordCount         int     `json:"word_count"`
			InputTokens       int     `json:"input_tokens"`
			OutputTokens      int     `json:"output_tokens"`
			InputTokensO200k  int     `json:"input_tokens_o200k"`
			OutputTokensO200k int     `json:"output_tokens_o200k"`
			TokenReduction    float64 `json:"token_reduction"`
		} `json:"statistics"`
		Quality float64 `json:"quality"`
		Method  string  `json:"extraction_method"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if got.Markdown != strings.TrimRight(readTestdata(t, "pages/structure.md"), "\n") {
		t.Errorf("markdown differs from the golden body")
	}
	if got.Metadata.Title != "Tuning a Go HTTP client for slow feeds" || got.Statistics.WordCount == 0 ||
		got.Statistics.OutputTokens >= got.Statistics.InputTokens || got.Quality <= 0 || got.Method == "" {
		t.Errorf("unexpected JSON: %+v", got)
	}
	// The counts are tiktoken's, exactly, of the page and of the body.
	page := readTestdata(t, "pages/structure.html")
	st := got.Statistics
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"input_tokens", st.InputTokens, referenceCount(tokens.CL100kBase, page)},
		{"output_tokens", st.OutputTokens, referenceCount(tokens.CL100kBase, got.Markdown)},
		{"input_tokens_o200k", st.InputTokensO200k, referenceCount(tokens.O200kBase, page)},
		{"output_tokens_o200k", st.OutputTokensO200k, referenceCount(tokens.O200kBase, got.Markdown)},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, tiktoken-go counts %d", c.name, c.got, c.want)
		}
	}
}

func TestCommandFetchesURLs(t *testing.T) {
	page := readTestdata(t, "pages/news.html")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, page)
	}))
	defer srv.Close()
	fetch := func(ctx context.Context, u string) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		return io.ReadAll(resp.Body)
	}
	code, out, errOut := runCommand(t, "", fetch, srv.URL+"/news/x", "--body-only")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Relative links resolve against the fetched URL.
	if !strings.Contains(out, "]("+srv.URL+"/council/works)") {
		t.Errorf("links not resolved against the fetched URL:\n%s", out)
	}
	code, _, errOut = runCommand(t, "", nil, "https://example.org/x")
	if code != 1 || !strings.Contains(errOut, "not available") {
		t.Errorf("URL without a fetcher: exit %d, %q", code, errOut)
	}
}

func TestCommandErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.html")
	if err := os.WriteFile(empty, []byte("<html><body></body></html>"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"no argument", nil, 2},
		{"too many arguments", []string{"a", "b", "c"}, 2},
		{"bad format", []string{"--format", "pdf", empty}, 2},
		{"unknown flag", []string{"--nope", empty}, 2},
		{"missing file", []string{filepath.Join(dir, "missing.html")}, 1},
		{"page without content", []string{empty}, 1},
		{"help", []string{"-h"}, 0},
	}
	for _, tt := range tests {
		code, _, errOut := runCommand(t, "", noFetch(t), tt.args...)
		if code != tt.code {
			t.Errorf("%s: exit %d, want %d (%s)", tt.name, code, tt.code, errOut)
		}
		if tt.code != 0 && errOut == "" {
			t.Errorf("%s: no message on stderr", tt.name)
		}
	}
}
