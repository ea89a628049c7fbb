package extract

import (
	"math/rand/v2"
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

// TestTextAllMatchesConcatenation holds textAll to the tests it replaces,
// which built the text: on random trees of text (invalid UTF-8 split
// across nodes included), inline elements and scripts.
func TestTextAllMatchesConcatenation(t *testing.T) {
	pieces := []string{"", " ", "\n", "\u00a0", "\u200b", "a", "é", "\xe2\x80", "\x8b", "\x83", "\xff", "\u2003"}
	rng := rand.New(rand.NewPCG(13, 14))
	var build func(depth int) string
	build = func(depth int) string {
		var b strings.Builder
		for range rng.IntN(4) {
			switch k := rng.IntN(6); {
			case k == 0 && depth < 3:
				b.WriteString("<span>" + build(depth+1) + "</span>")
			case k == 1 && depth < 3:
				b.WriteString("<script>" + pieces[rng.IntN(len(pieces))] + "</script>")
			default:
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
		}
		return b.String()
	}
	for range 20000 {
		nodes, err := parseFragment("<div>" + build(0) + "</div>")
		if err != nil {
			t.Fatal(err)
		}
		n := nodes[0]
		raw := textContentRaw(n)
		if found, all := textAll(n, false, isInvisible); all != (strings.TrimFunc(raw, isInvisible) == "") || all && found != (raw != "") {
			t.Fatalf("textAll(%q, isInvisible) = %v, %v", raw, found, all)
		}
		if got, want := onlySpace(n), strings.TrimSpace(keyText(n)) == ""; got != want {
			t.Fatalf("onlySpace: %v, keyText %q gives %v", got, keyText(n), want)
		}
	}
}
