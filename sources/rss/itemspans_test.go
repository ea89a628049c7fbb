package rss

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/bench/feedfarm"
	"github.com/feedpoller/feedpoller/sources"
)

// cutCases are documents written for the entry reader: the feed
// context an entry's reading depends on, and documents it must read
// whole.
var cutCases = map[string]struct {
	body string
	// cut says the entries may be read apart (false: the document must
	// be parsed whole whatever was settled).
	cut bool
}{
	"relative links under xml:base": {`<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://base.example/blog/">
<title>T</title><link href="/"/><author><name>Feed Author</name></author><updated>2026-01-02T00:00:00Z</updated>
<entry><title type="html">A &amp;amp; B</title><link href="a.html"/><id>tag:x,1</id><content type="html">&lt;p&gt;one&lt;/p&gt;</content></entry>
<entry xml:base="/other/"><title>B</title><link href="b.html"/><id>tag:x,2</id><summary>two</summary></entry>
<entry><title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">C <b>bold</b></div></title><link href="c"/><id>tag:x,3</id></entry>
</feed>`, true},
	"unescaped html in descriptions": {`<rss version="2.0"><channel><title>T</title><link>https://site.example/</link><lastBuildDate>Mon, 01 Jun 2026 10:00:00 GMT</lastBuildDate>
<item><title>One</title><link>/one</link><description><p>para <br> line <img src="/i.png"></p></description></item>
<item><title>Two</title><link>/two</link><description><div><p>unclosed</div></description></item>
<item/>
<item><title>Three</title><link>https://site.example/three</link><!-- </item> --><description><![CDATA[<p>not </item> the end</p>]]></description></item>
</channel></rss>`, true},
	"rss 1.0": {`<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
<channel rdf:about="https://site.example/"><title>T</title><link>https://site.example/</link></channel>
<item rdf:about="https://site.example/1"><title>One</title><link>https://site.example/1</link></item>
<item rdf:about="https://site.example/2"><title>Two</title><link>https://site.example/2</link></item>
</rdf:RDF>`, true},
	"a stray end tag in an entry": {`<rss version="2.0"><channel><title>T</title>
<item><title>One</title><link>https://site.example/1</link><b></i></item>
<item><title>Two</title><link>https://site.example/2</link></item></channel></rss>`, false},
	"an end tag of the entry's parent in an entry": {`<rss version="2.0"><channel><title>T</title>
<item><title>One</title><link>https://site.example/1</link></channel><channel></item>
<item><title>Two</title><link>https://site.example/2</link></item></channel></rss>`, false},
	"an entry in an entry": {`<rss version="2.0"><channel><title>T</title>
<item><title>One</title><item><title>In</title></item></item></channel></rss>`, false},
	"entries at two depths": {`<rss version="2.0"><channel><title>T</title>
<item><title>One</title><link>https://site.example/1</link></item>
<extra><item><title>Two</title><link>https://site.example/2</link></item></extra></channel></rss>`, false},
	"prefixed entries": {`<atom:feed xmlns:atom="http://www.w3.org/2005/Atom"><atom:title>T</atom:title>
<atom:entry><atom:title>One</atom:title><atom:id>1</atom:id></atom:entry></atom:feed>`, false},
	"doctype with entities": {`<!DOCTYPE rss [<!ENTITY e "x">]><rss version="2.0"><channel><title>T</title>
<item><title>&e;</title><link>https://site.example/1</link></item></channel></rss>`, false},
	"an unclosed entry": {`<rss version="2.0"><channel><title>T</title>
<item><title>One</title><link>https://site.example/1</link></item><item><title>Two</title>`, false},
}

// cutDocs are every document the tests read apart: the cases above, the
// fidelity fixtures (real feeds' structures and encodings), the tags-only
// cases and the feed farm's feeds in both formats and both text models.
func cutDocs(t testing.TB) map[string][]byte {
	docs := map[string][]byte{}
	for name, c := range cutCases {
		docs["case/"+name] = []byte(c.body)
	}
	for name, body := range tagsOnlyCases {
		docs["tags-only/"+name] = []byte(body)
	}
	dir := filepath.Join("testdata", "fidelity")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		body, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		docs["fidelity/"+e.Name()] = body
	}
	for _, format := range []feedfarm.Format{feedfarm.FormatRSS, feedfarm.FormatAtom} {
		docs["farm/"+format.String()+"/uniform"] = farmFeedText(t, format, feedfarm.TextUniform)
		docs["farm/"+format.String()+"/news"] = farmFeedText(t, format, feedfarm.TextNews)
	}
	return docs
}

// TestSettledEntriesLeftUnreadChangeNoOtherItem reads every document with
// each of several sets of its entries settled, and checks that the items
// read are exactly those the whole document gives for the other entries,
// in order, and that the documents that must be parsed whole are.
func TestSettledEntriesLeftUnreadChangeNoOtherItem(t *testing.T) {
	cut := 0
	docs := cutDocs(t)
	for name, body := range docs {
		t.Run(name, func(t *testing.T) {
			n := checkCuts(t, body, nil)
			if c, ok := cutCases[strings.TrimPrefix(name, "case/")]; ok && strings.HasPrefix(name, "case/") && (n > 0) != c.cut {
				t.Fatalf("%d reads left entries out, want cut %v", n, c.cut)
			}
			if strings.HasPrefix(name, "farm/") && n == 0 {
				t.Fatal("the farm's feed was never read apart")
			}
			if n > 0 {
				cut++
			}
		})
	}
	// Most documents are read apart: the test is not passing by parsing
	// everything whole.
	if cut < len(docs)/2 {
		t.Fatalf("%d of %d documents read apart", cut, len(docs))
	}
}

// checkCuts reads body whole, then with sets of its entries settled (each
// one alone, all but each one, every other one, all of them, or only the
// set mask picks when not nil), and compares. It returns how many reads
// left entries out.
func checkCuts(t testing.TB, body []byte, mask []byte) int {
	const feedURL = "https://feed.example/path/feed.xml"
	whole, err := parseFeed(body, "application/xml", "", feedURL, DefaultMaxItems)
	u := NewUnchanged()
	first, err2 := readFeed(body, "application/xml", "", feedURL, DefaultMaxItems, u, nil)
	if (err == nil) != (err2 == nil) {
		t.Fatalf("whole: %v; read as entries: %v", err, err2)
	}
	if err != nil {
		return 0
	}
	if !reflect.DeepEqual(withoutDigests(first.items), whole.items) {
		t.Fatalf("read as entries, the items differ from the whole document's")
	}
	if !first.entries {
		return 0
	}
	k := len(first.items)
	var sets [][]bool
	if mask != nil {
		s := make([]bool, k)
		for i := range s {
			s[i] = len(mask) > 0 && mask[i%len(mask)]&(1<<(i/len(mask)%8)) != 0
		}
		sets = append(sets, s)
	} else {
		for i := 0; i < k; i++ {
			one, allBut := make([]bool, k), make([]bool, k)
			for j := range allBut {
				allBut[j] = j != i
			}
			one[i] = true
			sets = append(sets, one, allBut)
		}
		every, all := make([]bool, k), make([]bool, k)
		for i := range every {
			every[i], all[i] = i%2 == 0, true
		}
		sets = append(sets, every, all)
	}
	cuts := 0
	for _, set := range sets {
		prior := settled{url: feedURL, context: first.context}
		for i, in := range set {
			if in {
				prior.digests = append(prior.digests, first.items[i].Digest)
			}
		}
		slices.Sort(prior.digests)
		got, err := readFeed(body, "application/xml", "", feedURL, DefaultMaxItems, u, &prior)
		if err != nil {
			t.Fatalf("settled %v: %v", set, err)
		}
		want := first.items
		if len(got.unchanged) > 0 {
			cuts++
			want = nil
			for _, it := range first.items {
				if !prior.has(it.Digest) {
					want = append(want, it)
				}
			}
			if len(got.unchanged)+len(got.items) != len(first.items) {
				t.Fatalf("settled %v: %d left unread and %d read of %d", set, len(got.unchanged), len(got.items), len(first.items))
			}
		}
		if !reflect.DeepEqual(got.items, want) && !(len(got.items) == 0 && len(want) == 0) {
			t.Fatalf("settled %v: read %d items, want %d:\n got %+v\nwant %+v", set, len(got.items), len(want), got.items, want)
		}
		if got.title != whole.title || got.siteURL != whole.siteURL || !reflect.DeepEqual(got.hints, whole.hints) {
			t.Fatalf("settled %v: the feed's own fields differ", set)
		}
	}
	return cuts
}

func withoutDigests(items []sources.FeedItem) []sources.FeedItem {
	out := slices.Clone(items)
	for i := range out {
		out[i].Digest = 0
	}
	return out
}

// TestChangedFeedContextReadsWhole: when what the entries' reading
// depends on outside them changed since they were settled (here the
// feed's link, the base of their relative links), the document is parsed
// whole, and the settled entries are read again.
func TestChangedFeedContextReadsWhole(t *testing.T) {
	doc := func(link string) []byte {
		return []byte(`<rss version="2.0"><channel><title>T</title><link>` + link + `</link>
<item><title>One</title><link>/one</link></item><item><title>Two</title><link>/two</link></item></channel></rss>`)
	}
	const feedURL = "https://feed.example/feed.xml"
	u := NewUnchanged()
	first, err := readFeed(doc("https://a.example/"), "", "", feedURL, DefaultMaxItems, u, nil)
	if err != nil || !first.entries {
		t.Fatalf("first read: entries %v, %v", first != nil && first.entries, err)
	}
	prior := settled{url: feedURL, context: first.context, digests: []uint64{first.items[0].Digest, first.items[1].Digest}}
	slices.Sort(prior.digests)
	same, err := readFeed(doc("https://a.example/"), "", "", feedURL, DefaultMaxItems, u, &prior)
	if err != nil || len(same.unchanged) != 2 || len(same.items) != 0 {
		t.Fatalf("same feed: %d unread, %d read, %v; want 2 unread", len(same.unchanged), len(same.items), err)
	}
	moved, err := readFeed(doc("https://b.example/"), "", "", feedURL, DefaultMaxItems, u, &prior)
	if err != nil || len(moved.unchanged) != 0 || len(moved.items) != 2 || moved.items[0].URL != "https://b.example/one" {
		t.Fatalf("feed link changed: %d unread, items %+v, %v; want both read again against the new link",
			len(moved.unchanged), moved.items, err)
	}
}

// FuzzSettledEntries reads arbitrary documents with the entries mask
// picks settled: never an item the whole document does not give.
func FuzzSettledEntries(f *testing.F) {
	for _, body := range cutDocs(f) {
		f.Add(body, []byte{0x55})
	}
	f.Fuzz(func(t *testing.T, body, mask []byte) {
		if len(body) > 1<<16 {
			return
		}
		checkCuts(t, body, mask)
	})
}

// TestSettledEntriesOnGofeedCorpus reads the feed files of gofeed's own
// test data (real feeds' structures, extensions and malformations,
// written by others) with sets of their entries settled, as
// TestSettledEntriesLeftUnreadChangeNoOtherItem does.
func TestSettledEntriesOnGofeedCorpus(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/mmcdole/gofeed").Output()
	if err != nil {
		t.Skipf("gofeed's module directory: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "testdata")
	var files, read, cut int
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".xml" {
			return err
		}
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		t.Run(strings.TrimPrefix(path, dir), func(t *testing.T) {
			if n := checkCuts(t, body, nil); n > 0 {
				cut++
			}
			if _, err := parseFeed(body, "application/xml", "", "https://feed.example/", DefaultMaxItems); err == nil {
				read++
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files, %d read as feeds, %d of them read apart", files, read, cut)
	if files < 500 || cut < 100 {
		t.Fatalf("%d files, %d read apart: the corpus is not what it was", files, cut)
	}
}
