package poller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/feedpoller/feedpoller/model"
)

// TestUnsafeLinkSchemesNeverStored polls a feed whose items carry links
// and images with every usual obfuscation of a script URL, and reads the
// stored Markdown the way a renderer does: every link and image left must
// be http(s), mailto or relative, and a dropped link keeps its text.
func TestUnsafeLinkSchemesNeverStored(t *testing.T) {
	// Feed content that already is Markdown is stored as it is only when
	// it is safe; else it is stored as escaped text.
	mdBody := "# Notes\n\n" + strings.Repeat("Plain **Markdown** words about the release and its many changes. ", 8) + "\n\n"
	cases := []struct {
		name, html string
		kept       string // a destination that must stay ("" when the link must go)
		markdown   bool   // html is the whole content, written as Markdown
	}{
		{"control character before the scheme", `<a href="&#1;javascript:alert(1)">LINKTEXT</a>`, "", false},
		{"NUL before the scheme", `<a href="&#0;javascript:alert(1)">LINKTEXT</a>`, "", false},
		{"leading space and newline", `<a href=" &#10; javascript:alert(1)">LINKTEXT</a>`, "", false},
		{"mixed case", `<a href="JaVaScRiPt:alert(1)">LINKTEXT</a>`, "", false},
		{"tab inside the scheme", `<a href="java&#9;script:alert(1)">LINKTEXT</a>`, "", false},
		{"literal tab inside the scheme", "<a href=\"java\tscript:alert(1)\">LINKTEXT</a>", "", false},
		{"newline inside the scheme", `<a href="java&#x0A;script:alert(1)">LINKTEXT</a>`, "", false},
		{"entity colon", `<a href="javascript&colon;alert(1)">LINKTEXT</a>`, "", false},
		{"entity letters", `<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">LINKTEXT</a>`, "", false},
		{"hex entity letters", `<a href="&#x6A;avascript&#x3A;alert(1)">LINKTEXT</a>`, "", false},
		{"entity written for Markdown to decode", `<a href="java&amp;#115;cript:alert(1)">LINKTEXT</a>`, "", false},
		{"backslash escape for Markdown to decode", `<a href="javascript\:alert(1)">LINKTEXT</a>`, "", false},
		{"percent-encoded scheme", `<a href="%6Aavascript:alert(1)">LINKTEXT</a>`, "", false},
		{"zero-width space", `<a href="java&#x200B;script:alert(1)">LINKTEXT</a>`, "", false},
		{"vbscript", `<a href="vbscript:msgbox(1)">LINKTEXT</a>`, "", false},
		{"data URL link", `<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">LINKTEXT</a>`, "", false},
		{"file URL", `<a href="file:///etc/passwd">LINKTEXT</a>`, "", false},
		{"unknown scheme", `<a href="x-app://open?cmd=rm">LINKTEXT</a>`, "", false},
		{"protocol-relative script host", `<a href="//javascript:alert(1)">LINKTEXT</a>`, "", false},
		{"image with script source", `<img src="javascript:alert(1)" alt="IMG">`, "", false},
		{"image with obfuscated script source", `<img src="&#1;JAVASCRIPT:alert(1)" alt="IMG">`, "", false},
		{"image with vbscript source", `<img src="vbscript:msgbox(1)" alt="IMG">`, "", false},
		{"image with a mailto source", `<img src="mailto:a@example.com" alt="IMG">`, "", false},
		// What stays.
		{"https link", `<a href="https://docs.example.org/page">LINKTEXT</a>`, "https://docs.example.org/page", false},
		{"mixed-case http", `<a href="HTTP://docs.example.org/x">LINKTEXT</a>`, "http://docs.example.org/x", false},
		{"mailto link", `<a href="mailto:editor@example.org">LINKTEXT</a>`, "mailto:editor@example.org", false},
		{"relative link, made absolute", `<a href="/about">LINKTEXT</a>`, "/about", false},
		{"protocol-relative link", `<a href="//cdn.example.org/x">LINKTEXT</a>`, "https://cdn.example.org/x", false},
		{"https image", `<img src="https://img.example.org/a.png" alt="IMG">`, "https://img.example.org/a.png", false},
		{"Markdown content with a script link", mdBody + "Before [LINKTEXT](javascript:alert(1)) after.", "", true},
		{"Markdown content with an obfuscated link", mdBody + "Before [LINKTEXT](JAVA&#x53;CRIPT:alert(1)) after.", "", true},
		{"Markdown content with a reference link", mdBody + "Before [LINKTEXT][r] after.\n\n[r]: vbscript:msgbox(1)", "", true},
		{"Markdown content with an autolink", mdBody + "Before <javascript:alert(1)> LINKTEXT after.", "", true},
		{"Markdown content with a safe link", mdBody + "Before [LINKTEXT](https://docs.example.org/md) after.", "https://docs.example.org/md", true},
	}
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect, model.RelevanceProfile{})
		var entries []entry
		for i, c := range cases {
			content := body(c.name) + "<p>Before " + c.html + " after.</p>"
			if c.markdown {
				content = c.html
			}
			entries = append(entries, entry{guid: fmt.Sprint(i), link: fmt.Sprintf("https://news.example/%d", i), title: c.name, html: content})
		}
		e.feeds.set("/feed", rssDoc("Links", entries...))
		if out := e.pollNow(e.addSource("/feed")); out.ItemsNew != len(cases) {
			t.Fatalf("poll %+v, want %d new articles", out, len(cases))
		}
		for i, c := range cases {
			var md string
			if err := e.store.DB().Get(&md, e.store.DB().Rebind("SELECT content_markdown FROM feed_articles WHERE external_id = ?"), fmt.Sprint(i)); err != nil {
				t.Fatal(err)
			}
			dests := destinations(md)
			for _, d := range dests {
				if !safeForRenderer(d) {
					t.Errorf("%s: stored Markdown links to %q:\n%s", c.name, d, tail(md))
				}
			}
			if c.kept != "" && !containsSuffix(dests, c.kept) {
				t.Errorf("%s: the safe destination %q was lost (destinations %q):\n%s", c.name, c.kept, dests, tail(md))
			}
			if strings.Contains(c.html, "LINKTEXT") && !strings.Contains(md, "LINKTEXT") {
				t.Errorf("%s: the link text is gone:\n%s", c.name, tail(md))
			}
			flat := strings.ToLower(strings.Map(func(r rune) rune {
				if r <= ' ' || r == '\u200b' {
					return -1
				}
				return r
			}, md))
			for _, bad := range []string{"javascript:", "vbscript:", "data:text"} {
				if strings.Contains(flat, bad) {
					t.Errorf("%s: stored Markdown still spells %q:\n%s", c.name, bad, tail(md))
				}
			}
		}
	})
}

// destinations lists every link, image and autolink destination of md as
// a CommonMark parser reads it (entities and escapes decoded).
func destinations(md string) []string {
	src := []byte(md)
	var out []string
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.Link:
			out = append(out, string(v.Destination))
		case *ast.Image:
			out = append(out, string(v.Destination))
		case *ast.AutoLink:
			out = append(out, string(v.URL(src)))
		}
		return ast.WalkContinue, nil
	})
	return out
}

// safeForRenderer is the rule read from the outside: with what a browser
// ignores removed, the destination is http(s), mailto, or has no scheme.
func safeForRenderer(dest string) bool {
	d := strings.ToLower(strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return -1
		}
		return r
	}, dest))
	for _, ok := range []string{"http://", "https://", "mailto:", "/"} {
		if strings.HasPrefix(d, ok) {
			return true
		}
	}
	return !strings.Contains(strings.SplitN(strings.SplitN(d, "/", 2)[0], "?", 2)[0], ":")
}

func containsSuffix(list []string, want string) bool {
	for _, s := range list {
		if strings.HasSuffix(s, want) {
			return true
		}
	}
	return false
}

func tail(md string) string {
	if i := strings.LastIndex(md, "\n\n"); i >= 0 {
		return "…" + md[i:]
	}
	return md
}

// TestFeedSummaryStoredWithoutHTML: a feed's summary is HTML; what is
// stored (and served) is Markdown with no markup, script, event handler or
// script link left, and its text kept.
func TestFeedSummaryStoredWithoutHTML(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect, model.RelevanceProfile{})
		summary := `<p>Plain words</p><script>alert(1)</script><img src=x onerror="alert(2)">` +
			`<a href="javascript:alert(3)">click here</a> <b>bold</b> <iframe src="https://evil.example/"></iframe>`
		e.feeds.set("/feed", `<?xml version="1.0"?><rss version="2.0"><channel><title>S</title>`+
			`<item><title>Item</title><link>https://news.example/s</link><guid>s1</guid>`+
			`<description><![CDATA[`+summary+`]]></description></item></channel></rss>`)
		if out := e.pollNow(e.addSource("/feed")); out.ItemsNew != 1 {
			t.Fatalf("poll %+v", out)
		}
		// The item has nothing but its summary: the text is stored once,
		// as the body, and served as the summary too.
		var stored []string
		if err := e.store.DB().Select(&stored, "SELECT summary || ' ' || content_markdown FROM feed_articles"); err != nil {
			t.Fatal(err)
		}
		arts, err := e.store.ListArticles(context.Background(), e.ws.ID, model.ListFilter{})
		if err != nil || len(arts) != 1 || len(stored) != 1 {
			t.Fatalf("%d articles stored, %d listed (%v), want 1", len(stored), len(arts), err)
		}
		got := arts[0].Summary
		low := strings.ToLower(stored[0])
		for _, bad := range []string{"<", "script", "onerror", "javascript", "iframe", "alert("} {
			if strings.Contains(low, bad) {
				t.Errorf("stored text holds %q: %q", bad, stored[0])
			}
		}
		for _, want := range []string{"Plain words", "click here", "**bold**"} {
			if !strings.Contains(got, want) {
				t.Errorf("served summary lost %q: %q", want, got)
			}
		}
	})
}
