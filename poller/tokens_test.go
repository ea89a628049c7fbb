package poller_test

import (
	"testing"

	"github.com/feedpoller/feedpoller/analysis/tokens"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/sources/firecrawl/firecrawltest"
)

// TestPollStoresExactTokenCounts: a polled page's article carries the
// exact cl100k_base and o200k_base token counts of the page's HTML and of
// the stored Markdown, on both databases.
func TestPollStoresExactTokenCounts(t *testing.T) {
	cl, err := tokens.For(tokens.CL100kBase)
	if err != nil {
		t.Fatal(err)
	}
	o2, err := tokens.For(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	page := "<html><head><title>Golang notes</title></head><body><article>" + paragraphs("the golang release") + "</article></body></html>"
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newWebEnv(t, dialect, webProfile, webSetup{firecrawl: &firecrawltest.Config{}})
		e.fc.Handle("example.com", firecrawltest.Success(firecrawltest.Page{HTML: page, Metadata: map[string]any{"title": "Golang notes"}}))
		src := e.addWeb("https://example.com/notes", false)
		if outs := e.pollDue(); len(outs) != 1 || outs[0].Status != model.StatusOK || outs[0].ItemsNew != 1 {
			t.Fatalf("poll %+v, want one ok poll storing 1 article", outs)
		}
		arts := e.articles(src)
		if len(arts) != 1 || arts[0].ContentMarkdown == "" {
			t.Fatalf("articles %+v", arts)
		}
		a := arts[0]
		for _, c := range []struct {
			name      string
			got, want int
		}{
			{"input_tokens", a.InputTokens, cl.Count(page)},
			{"output_tokens", a.OutputTokens, cl.Count(a.ContentMarkdown)},
			{"input_tokens_o200k", a.InputTokensO200k, o2.Count(page)},
			{"output_tokens_o200k", a.OutputTokensO200k, o2.Count(a.ContentMarkdown)},
		} {
			if c.got != c.want || c.got == 0 {
				t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
			}
		}
	})
}
