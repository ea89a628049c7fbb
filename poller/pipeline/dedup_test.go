package pipeline

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/extract"
)

func TestDropKnown(t *testing.T) {
	tracked := webSource
	tracked.TrackChanges = true
	rev3 := stored(9, "https://status.example.com/", "")
	rev3.Revision, rev3.ContentTextHash = 3, "abc"
	otherSource := stored(5, "https://elsewhere.example/x", "g-other")
	*otherSource.FeedSourceID = 2
	known := &fakeLookup{stored: []model.KnownArticle{
		stored(1, "https://news.example.com/by-url", ""),
		stored(2, "https://news.example.com/old-link", "g-1"),
		otherSource,
		rev3,
		stored(10, "https://status.example.com/", ""),
	}}
	tests := []struct {
		name     string
		src      model.FeedSource
		item     item
		keep     bool
		wantPrev int64 // the revision a tracked page is compared with
	}{
		{"new", rssSource, item{url: "https://news.example.com/new", feed: sources.FeedItem{GUID: "g-new"}}, true, 0},
		{"URL stored in the workspace", rssSource, item{url: "https://news.example.com/by-url"}, false, 0},
		{"GUID the source stored under another URL", rssSource, item{url: "https://news.example.com/moved", feed: sources.FeedItem{GUID: "g-1"}}, false, 0},
		{"GUID only another source stored", rssSource, item{url: "https://news.example.com/y", feed: sources.FeedItem{GUID: "g-other"}}, true, 0},
		{"web page stored, changes not tracked", webSource, item{url: "https://status.example.com/"}, false, 0},
		{"tracked page stored: kept with its latest revision", tracked, item{url: "https://status.example.com/"}, true, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Pipeline{opts: Options{Lookup: known}}
			k, err := p.lookup(context.Background(), tt.src, []item{tt.item})
			if err != nil {
				t.Fatal(err)
			}
			kept, dups, _ := dropKnown(tt.src, []item{tt.item}, k)
			if (len(kept) == 1) != tt.keep || dups != 1-len(kept) {
				t.Fatalf("kept %d, %d duplicates; want kept=%v", len(kept), dups, tt.keep)
			}
			if !tt.keep {
				return
			}
			if got := kept[0].prev; (got == nil) != (tt.wantPrev == 0) || (got != nil && got.Revision != int(tt.wantPrev)) {
				t.Fatalf("prev %+v, want revision %d", got, tt.wantPrev)
			}
		})
	}
}

// TestDropUnchanged: a tracked page becomes a new revision, linked to the
// one before, only when its main content changed.
func TestDropUnchanged(t *testing.T) {
	prev := model.KnownArticle{ID: 41, Revision: 2, ContentTextHash: "same"}
	items := []item{
		{url: "https://a.example/", prev: &prev, art: model.FeedArticle{ContentTextHash: "same", Revision: 1}},
		{url: "https://b.example/", prev: &prev, art: model.FeedArticle{ContentTextHash: "changed", Revision: 1}},
		{url: "https://c.example/", art: model.FeedArticle{ContentTextHash: "new", Revision: 1}},
	}
	kept, dups := dropUnchanged(items)
	if dups != 1 || len(kept) != 2 {
		t.Fatalf("kept %d, %d unchanged; want 2 and 1", len(kept), dups)
	}
	if a := kept[0].art; kept[0].url != "https://b.example/" || a.Revision != 3 || a.PreviousArticleID == nil || *a.PreviousArticleID != 41 {
		t.Errorf("changed page: %+v, want revision 3 after article 41", a)
	}
	if a := kept[1].art; a.Revision != 1 || a.PreviousArticleID != nil {
		t.Errorf("untracked item: %+v, want revision 1 with no previous", a)
	}
}

// TestDedupCanonical: an article whose page names a canonical URL on its
// own site is stored under it, and dropped when the workspace or an
// earlier item has it; other canonical URLs are ignored. The lookup is
// asked once, and only when some page declared a canonical URL.
func TestDedupCanonical(t *testing.T) {
	withCanonical := func(link, canonical string) item {
		return item{url: link, ex: extraction{meta: extract.Metadata{CanonicalURL: canonical}},
			art: model.FeedArticle{ExternalURL: link, Revision: 1}}
	}
	items := []item{
		withCanonical("https://news.example.com/a?ref=rss", "https://www.example.com/story-a"),
		withCanonical("https://news.example.com/b", "https://news.example.com/stored-story"),
		withCanonical("https://news.example.com/c", "https://www.example.com/story-a"), // taken by the first
		withCanonical("https://news.example.com/d", "https://other-site.example/d"),
		withCanonical("https://news.example.com/e", "http://10.0.0.5/e"),
		withCanonical("https://news.example.com/f", "https://news.example.com/"),
		withCanonical("https://news.example.com/g", "https://news.example.com/g"),
		{url: "https://news.example.com/h", art: model.FeedArticle{ExternalURL: "https://news.example.com/h", Revision: 1}},
	}
	lookup := &fakeLookup{stored: []model.KnownArticle{stored(1, "https://news.example.com/stored-story", "")}}
	p := &Pipeline{opts: Options{Lookup: lookup}}
	kept, dups, err := p.dedupCanonical(context.Background(), rssSource, items)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"https://www.example.com/story-a", "https://news.example.com/d", "https://news.example.com/e",
		"https://news.example.com/f", "https://news.example.com/g", "https://news.example.com/h"}
	var got []string
	for _, it := range kept {
		got = append(got, it.art.ExternalURL)
	}
	if dups != 2 || len(got) != len(want) {
		t.Fatalf("kept %v with %d duplicates, want %v and 2", got, dups, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("article %d stored under %s, want %s", i, got[i], want[i])
		}
	}
	if len(lookup.calls) != 1 || len(lookup.calls[0].urls) != 3 || lookup.calls[0].guids != nil {
		t.Errorf("lookups %+v, want one of the 3 canonical URLs", lookup.calls)
	}

	// No page named a usable canonical URL: no query at all.
	lookup.calls = nil
	if _, _, err := p.dedupCanonical(context.Background(), rssSource, items[3:]); err != nil || len(lookup.calls) != 0 {
		t.Errorf("lookups %+v (err %v), want none", lookup.calls, err)
	}
	// A web source keeps its source URL whatever the page says.
	if canonicalOf(webSource, withCanonical("https://status.example.com/", "https://status.example.com/other")) != "" {
		t.Error("a web source's item took the page's canonical URL")
	}
}

func TestInternalHost(t *testing.T) {
	for host, internal := range map[string]bool{
		"127.0.0.1": true, "[::1]": true, "10.1.2.3": true, "169.254.169.254": true, "localhost": true,
		"intranet": true, "db.internal": true, "printer.local": true, "router.home.arpa": true, "Example.COM.": false,
		"news.example.com": false, "93.184.216.34": false,
	} {
		if got := internalHost(host); got != internal {
			t.Errorf("internalHost(%q) = %v, want %v", host, got, internal)
		}
	}
}

// TestContentHash: the hash sees through markup, punctuation, case and
// spacing, so two feeds carrying one story match; an article without text
// is told apart by its title and URL.
func TestContentHash(t *testing.T) {
	a := contentHash("Breaking: The  Scheduler, rewritten!\n", "", "")
	b := contentHash("breaking the scheduler rewritten", "", "")
	if a == "" || a != b {
		t.Errorf("hashes %q and %q of one text differ", a, b)
	}
	if a == contentHash("breaking the scheduler rewritten again", "", "") {
		t.Error("different texts hash alike")
	}
	x := contentHash("  ", "Photo", "https://a.example/1")
	y := contentHash("", "Photo", "https://a.example/2")
	if x == "" || x == y {
		t.Errorf("textless articles hash %q and %q, want distinct by URL", x, y)
	}
	if contentHash("!!!", "", "") != "" {
		t.Error("no letters or digits should hash to nothing")
	}
}

// referenceContentHash is contentHash as first written, rune by rune
// through the Unicode tables: hashes already stored must keep matching
// the new articles of the same story.
func referenceContentHash(text, title, url string) string {
	if strings.TrimSpace(text) == "" {
		text = title + " " + url
	}
	var b strings.Builder
	space := false
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
		} else {
			space = true
		}
	}
	if b.Len() == 0 {
		return ""
	}
	sum := md5.Sum([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}

// TestContentHashUnchanged compares contentHash with the reference on
// text mixing ASCII, other scripts, invalid UTF-8 and runs of separators,
// long enough to cross its buffer.
func TestContentHashUnchanged(t *testing.T) {
	alphabet := []string{"a", "Z", "0", "9", " ", "  ", "\n", ".", "-", "_", "'", "’", "É", "é", "ß", "İ", "Σ",
		"字", "٣", "\u00a0", "\u200b", "\xff", "\xe2\x80", "\x00", "\x7f", "@", "[", "`", "{"}
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []string{"", " ", "!!!", "A", "Breaking: The  Scheduler, rewritten!\n"}
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(1500) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		if got, want := contentHash(s, "T", "u"), referenceContentHash(s, "T", "u"); got != want {
			t.Fatalf("contentHash(%q) = %q, want %q", s, got, want)
		}
	}
}
