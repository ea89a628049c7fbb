package extract

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The golden files were written for these tests (no page is copied from a
// site). Each .html has a .md next to it holding the exact Markdown a
// reader should get; see the comment in each test for the rules covered.

// TestExtractGoldenPages covers whole pages: boilerplate removal (nav,
// cookie banner, share tools, sidebar, newsletter box, footer, related
// strip, "READ MORE" line), headline and standfirst left out of the body,
// heading levels, ordered-list start and nesting, fenced code with
// language hints kept byte for byte, GFM tables, links and images
// resolved against <base href>, tracking pixels, empty links and inline
// styles dropped. The defect-* pages each hold one kind of defect seen on
// real pages, with the Markdown a reader should get instead:
//
//   - defect-spacing: text directly in a <div> or <blockquote> beside
//     inline markup kept its spaces ("**will**appreciate"), in one
//     paragraph, and lines split by <br> stay apart;
//   - defect-table-br: a table with a <br> in a cell stays a table;
//   - defect-emphasis: asterisks inside bold text are escaped so none
//     is lost, and emphasis over punctuation does not show asterisks;
//   - defect-links: links go back at their own place, not on the first
//     words that read the same ("knowl[ed]ge") nor on a table header
//     that reads like a menu link ("Stats");
//   - defect-custom-element: the text after an unknown element is kept;
//   - defect-junk: an empty layout table, zero-width-space paragraphs, a
//     <tfoot> repeating the header, share links, a dangling "You may
//     also like:" heading and a print-header logo are left out;
//   - captions (with KeepCaptions): a figure caption is an italic line
//     under its picture.
func TestExtractGoldenPages(t *testing.T) {
	const gazette = "https://gazette.example.com/news/2026/03/valley"
	pages := []struct {
		name, url string
		opts      Options
	}{
		{"structure.html", "https://example.org/blog/go-client.html", Options{}},
		{"news.html", "https://gazette.example.com/news/2026/03/river-levels-fall?utm_source=x", Options{}},
		{"defect-spacing.html", gazette, Options{}},
		{"defect-table-br.html", gazette, Options{}},
		{"defect-emphasis.html", gazette, Options{}},
		{"defect-links.html", gazette, Options{}},
		{"defect-custom-element.html", gazette, Options{}},
		{"defect-junk.html", gazette, Options{}},
		{"captions.html", gazette, Options{KeepCaptions: true}},
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			page := readTestdata(t, filepath.Join("pages", p.name))
			want := strings.TrimRight(readTestdata(t, filepath.Join("pages", strings.TrimSuffix(p.name, ".html")+".md")), "\n")
			doc, err := Extract([]byte(page), p.url, p.opts)
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			if doc.Markdown != want {
				t.Errorf("Markdown differs\n--- got\n%s\n--- want\n%s", doc.Markdown, want)
			}
		})
	}
}

// TestFragmentGolden covers FragmentToMarkdown on feed bodies: headings
// and links never double-escaped, text that merely looks like Markdown
// escaped only where needed, fragments that already are Markdown left as
// they are, entity-escaped HTML unescaped once, code blocks, lists,
// tables, and clutter (scripts, styles, pixels, hidden and empty links).
func TestFragmentGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "fragments", "*.html"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fragment fixtures: %v", err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			in := readTestdata(t, filepath.Join("fragments", name))
			want := strings.TrimRight(readTestdata(t, filepath.Join("fragments", strings.TrimSuffix(name, ".html")+".md")), "\n")
			got, err := FragmentToMarkdown(in, "https://blog.example.org/2026/05/post.html")
			if err != nil {
				t.Fatalf("FragmentToMarkdown: %v", err)
			}
			if got != want {
				t.Errorf("Markdown differs\n--- got\n%s\n--- want\n%s", got, want)
			}
		})
	}
}

// TestFragmentGoldenConcurrently converts every golden fragment from
// several goroutines at once, as the poller's workers do through the one
// shared converter, and each gets its own golden Markdown.
func TestFragmentGoldenConcurrently(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "fragments", "*.html"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fragment fixtures: %v", err)
	}
	type fixture struct{ name, in, want string }
	var fs []fixture
	for _, f := range files {
		name := filepath.Base(f)
		fs = append(fs, fixture{name, readTestdata(t, filepath.Join("fragments", name)),
			strings.TrimRight(readTestdata(t, filepath.Join("fragments", strings.TrimSuffix(name, ".html")+".md")), "\n")})
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(fs))
	for g := range 8 {
		wg.Go(func() {
			for round := range 5 {
				for i := range fs {
					f := fs[(i+g+round)%len(fs)]
					got, err := FragmentToMarkdown(f.in, "https://blog.example.org/2026/05/post.html")
					if err != nil || got != f.want {
						errs <- fmt.Sprintf("%s: got %q (%v)", f.name, got, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func readTestdata(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestExtractMarkdownInvariants checks the rules on every golden page
// independently of the exact text, so a change that breaks a rule says
// which one.
func TestExtractMarkdownInvariants(t *testing.T) {
	page := readTestdata(t, filepath.Join("pages", "structure.html"))
	doc, err := Extract([]byte(page), "https://example.org/blog/go-client.html", Options{})
	if err != nil {
		t.Fatal(err)
	}
	md := doc.Markdown
	for _, bad := range []string{
		"Tuning a Go HTTP client for slow feeds",   // headline is metadata
		"cookies", "Archive", "Related posts", "©", // boilerplate
		"pixel.gif", "](https://example.org/share)", // tracking pixel, empty link
		"style=", "track(", "color", // styles and scripts
		`\#`, `\[`, "&amp;", // double escaping
	} {
		if strings.Contains(md, bad) {
			t.Errorf("Markdown contains %q", bad)
		}
	}
	for _, good := range []string{
		"## Timeouts come in layers", "### The order to set them", // levels
		"3. Dial timeout", "   - Slow CDNs need more.", "5. Body deadline", // numbering, nesting
		"```go\ntr := &http.Transport{\n\tDialContext:", "```python\n", // fences, bytes
		"| Setting | Before | After |\n|---|---|---|",                         // GFM table
		"[transport guide](https://static.example.org/guides/transport.html)", // <base href>
		"![Poll latency before and after](https://static.example.org/notes/img/latency.png)",
	} {
		if !strings.Contains(md, good) {
			t.Errorf("Markdown lacks %q", good)
		}
	}
	if doc.Metadata.Title != "Tuning a Go HTTP client for slow feeds" {
		t.Errorf("title = %q", doc.Metadata.Title)
	}
}
