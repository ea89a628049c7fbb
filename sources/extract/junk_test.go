package extract

import (
	"strings"
	"testing"
)

// TestDropTrailingHeadings: a heading left at the end of the content with
// nothing under it (a widget's title, "You may also like:") goes; a
// heading with text under it, or the only content, stays.
func TestDropTrailingHeadings(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"<p>Body text.</p><h3>You may also like:</h3>", "Body text."},
		{"<p>Body text.</p><div><h2>Popular</h2><h3>More</h3></div>", "Body text."},
		{"<p>Body text.</p><h2>Section</h2><p>More text.</p>", "Body text.\n\n## Section\n\nMore text."},
		{"<h2>Only a heading</h2>", "## Only a heading"},
	}
	for _, tt := range tests {
		nodes, err := parseFragment(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		root := fragmentRoot(nodes)
		dropTrailingHeadings(root)
		md, err := nodeToMarkdown(root, nil)
		if err != nil {
			t.Fatal(err)
		}
		if md != tt.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tt.in, md, tt.want)
		}
	}
}

// TestShareLinks recognises share endpoints by the form of their URLs,
// and only them: a profile or a post on the same networks is a link.
func TestShareLinks(t *testing.T) {
	for href, share := range map[string]bool{
		"https://www.facebook.com/sharer/sharer.php?u=x":          true,
		"https://m.facebook.com/dialog/share?href=x":              true,
		"https://twitter.com/intent/tweet?url=x":                  true,
		"https://x.com/intent/post?url=x":                         true,
		"https://api.whatsapp.com/send?text=x":                    true,
		"https://wa.me/?text=x":                                   true,
		"whatsapp://send?text=x":                                  true,
		"https://www.linkedin.com/shareArticle?mini=true&url=x":   true,
		"https://pinterest.com/pin/create/button/?url=x":          true,
		"https://www.reddit.com/submit?url=x":                     true,
		"https://t.me/share/url?url=x":                            true,
		"mailto:?subject=Read%20this&body=x":                      true,
		"mailto:editor@example.org?subject=Letter":                false,
		"https://www.facebook.com/valleyauthority/posts/1":        false,
		"https://twitter.com/valleyauthority":                     false,
		"https://www.linkedin.com/in/someone":                     false,
		"https://example.org/share/how-to-share-a-flat":           false,
		"https://www.reddit.com/r/rivers/comments/1/flood_levels": false,
	} {
		if got := isShareLink(href); got != share {
			t.Errorf("isShareLink(%q) = %v, want %v", href, got, share)
		}
	}
}

// TestSpacingOnlyWhereThePageHasIt: a junction the page writes without a
// space (a superscript, a link over part of a word) stays as it is.
func TestSpacingOnlyWhereThePageHasIt(t *testing.T) {
	page := `<html><head><title>Units</title></head><body><article>` +
		para("Energy is written E = mc<sup>2</sup> in the notes, and water H<sub>2</sub>O, as usual.") +
		para("The repairs covered all <a href=\"/macbook\">MacBook</a>s sold that year, the report said.") +
		para("Engineers <em>say</em> the barriers held.") +
		`</article></body></html>`
	doc, err := Extract([]byte(page), "https://news.example/units", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"mc2 in the notes", "H2O, as usual", "[MacBook](https://news.example/macbook)s sold", "Engineers *say* the barriers"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, doc.Markdown)
		}
	}
}

// TestDropShareLinksInRemovedBlock: a share link whose paragraph already
// went with an earlier share link (its own text is a zero-width space,
// which shows nothing) is skipped, where it used to panic on the
// paragraph's missing parent. A feed entry can carry such markup.
func TestDropShareLinksInRemovedBlock(t *testing.T) {
	in := `<p><a href="https://twitter.com/intent/tweet?u=1">Tweet</a> ` +
		`<a href="https://www.facebook.com/sharer/sharer.php?u=1">` + "\u200b" + `</a></p><p>Body text here.</p>`
	md, err := FragmentToMarkdown(in, "https://example.org/")
	if err != nil {
		t.Fatal(err)
	}
	if md != "Body text here." {
		t.Errorf("got %q, want only the body", md)
	}
}
