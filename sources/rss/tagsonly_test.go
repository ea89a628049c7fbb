package rss

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/feedpoller/feedpoller/bench/feedfarm"
)

// tagsOnlyCases are documents on which reading the tags alone must give
// what reading the whole document gives: the kinds of every title and
// summary, and whether the document could be read at all.
var tagsOnlyCases = map[string]string{
	"escaped html bodies": `<feed xmlns="http://www.w3.org/2005/Atom"><title type="html">A &amp;amp; B</title>
<entry><title type="text">AT&amp;T</title><summary type="html">&lt;p&gt;x&lt;/p&gt;</summary>
<content type="html">&lt;p&gt;It&#8217;s &lt;b&gt;bold&lt;/b&gt; &amp;amp; fine&lt;/p&gt;</content></entry>
<entry><title>plain</title><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><title>not Atom's</title></div></content></entry></feed>`,
	"control character in a body":              "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><title type=\"html\">t</title><content>a\x01b</content></entry></feed>",
	"numeric reference to a control character": `<feed xmlns="http://www.w3.org/2005/Atom"><entry><title type="html">t</title><content>a&#1;b</content></entry></feed>`,
	"hex reference to U+FFFE":                  `<feed xmlns="http://www.w3.org/2005/Atom"><entry><title type="html">t</title><content>a&#xFFFE;b</content></entry></feed>`,
	"reference to NUL":                         `<feed xmlns="http://www.w3.org/2005/Atom"><entry><title type="html">t</title><content>&#0;</content></entry></feed>`,
	"references that stay as written": `<feed xmlns="http://www.w3.org/2005/Atom"><entry><title type="html">t</title>
<content>&#; &#x; &#12 &#99999999999999999999; &#xD800; &#X41; &nosuch; & alone</content></entry></feed>`,
	"invalid UTF-8 in a body": "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><title type=\"html\">t</title><content>a\xffb</content></entry></feed>",
	"U+FFFF in a body":        "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><title type=\"html\">t</title><content>a\uffffb</content></entry></feed>",
	"unescaped ]]> in a body": `<feed xmlns="http://www.w3.org/2005/Atom"><entry><title type="html">t</title><content>a]]>b</content></entry></feed>`,
	"greater-than in a body":  `<feed xmlns="http://www.w3.org/2005/Atom"><entry><title type="html">t</title><content>a > b &gt; c</content></entry></feed>`,
	"CDATA body":              `<feed xmlns="http://www.w3.org/2005/Atom"><entry><title type="html">t</title><content type="html"><![CDATA[<p>x > y</p> z]]> after</content></entry></feed>`,
	"comment with markup":     `<feed xmlns="http://www.w3.org/2005/Atom"><!-- <entry> x > y <title type="html"> --><entry><title>t</title></entry></feed>`,
	"comment end in text":     `<feed xmlns="http://www.w3.org/2005/Atom"><!-- a>b -->c<entry><title type="html">t</title></entry></feed>`,
	"greater-than in an attribute": `<feed xmlns="http://www.w3.org/2005/Atom"><entry><title type="html" x="a>b">t</title>
<summary type="a>b">s</summary></entry></feed>`,
	"less-than in an attribute": `<feed xmlns="http://www.w3.org/2005/Atom"><entry><title type="html" x="a>b<c">t</title></entry></feed>`,
	"doctype with entities": `<!DOCTYPE feed [<!ENTITY e "a>b<c">]><feed xmlns="http://www.w3.org/2005/Atom"><entry>
<title type="xhtml">&e;</title></entry></feed>`,
	"processing instruction":    `<?xml version="1.0"?><?x a > b ?>t<feed xmlns="http://www.w3.org/2005/Atom"><entry><title mode="escaped">t</title></entry></feed>`,
	"unclosed at the end":       `<feed xmlns="http://www.w3.org/2005/Atom"><entry><title type="html">t</title><content>text without end`,
	"text after the root":       `<feed xmlns="http://www.w3.org/2005/Atom"><entry><title type="html">t</title></entry></feed> trailing`,
	"foreign elements":          `<feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/"><entry><media:group><media:title type="html">m</media:title></media:group><title type="text">t</title></entry></feed>`,
	"Atom 0.3":                  `<feed version="0.3" xmlns="http://purl.org/atom/ns#"><entry><title mode="escaped" type="text/html">t</title><summary mode="base64">dA==</summary></entry></feed>`,
	"no namespace":              `<feed><title type="html">f</title><entry><title type="html">t</title><summary type="xhtml"><div>s</div></summary></entry></feed>`,
	"text after a void element": `<feed xmlns="http://www.w3.org/2005/Atom"><link>http://x.example/</link><entry><title type="html">t</title><LINK href="x"/>a<atom:br>b</atom:br></entry></feed>`,
	"HTML auto-closed tags":     `<feed xmlns="http://www.w3.org/2005/Atom"><entry><title type="html">t</title><content><br>a<hr>b</content></entry><entry><title>u</title></entry></feed>`,
	"quotes in a declaration":   "<!>\"<\">",
	"quotes in text":            `<feed xmlns="http://www.w3.org/2005/Atom"><!DOCTYPE x [<!ENTITY a 'b>"c'>]><entry><title type='html'>t</title><content>say "hi" it's</content></entry></feed>`,
	"empty":                     ``,
	"text only":                 `just text`,
	"carriage returns":          "<feed xmlns=\"http://www.w3.org/2005/Atom\">\r\n<entry>\r\n<title type=\"html\">t</title>\r\n<content>a\r\nb\r</content></entry></feed>",
	"tab and CJK":               "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><title type=\"html\">\t東京</title><content>\t東京 😀</content></entry></feed>",
}

// sameAsWhole fails t unless scanAtomKinds on body reports what decoding
// the whole document reports.
func sameAsWhole(t *testing.T, name string, body []byte) {
	t.Helper()
	wantK, wantOK := decodeAtomKinds(body)
	gotK, gotOK := scanAtomKinds(body)
	if gotOK != wantOK || !reflect.DeepEqual(gotK, wantK) {
		t.Errorf("%s: tags alone give %+v, %v; the whole document %+v, %v\nstripped: %q", name, gotK, gotOK, wantK, wantOK, tagsOnly(body))
	}
}

func TestTagsOnlyReadsAsTheWholeDocument(t *testing.T) {
	for name, doc := range tagsOnlyCases {
		sameAsWhole(t, name, []byte(doc))
	}
	files, err := filepath.Glob(filepath.Join("testdata", "fidelity", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no test feeds: %v", err)
	}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sameAsWhole(t, f, body)
	}
	for _, format := range []feedfarm.Format{feedfarm.FormatRSS, feedfarm.FormatAtom} {
		sameAsWhole(t, "farm "+format.String(), farmFeedBody(t, format))
	}
}

// TestTagsOnlyDropsTheBodies checks the point of it: the farm's Atom
// entries keep their tags and lose their escaped bodies, while a run the
// decoder would refuse is kept.
func TestTagsOnlyDropsTheBodies(t *testing.T) {
	body := farmFeedBody(t, feedfarm.FormatAtom)
	stripped := tagsOnly(body)
	if len(stripped)*4 > len(body) {
		t.Errorf("tags alone are %d of %d bytes", len(stripped), len(body))
	}
	if got, want := bytes.Count(stripped, []byte("<entry>")), 20; got != want {
		t.Errorf("%d entries left, want %d", got, want)
	}
	for _, keep := range []string{"a\x01b", "a&#1;b", "a\xffb"} {
		doc := "<feed><entry><content>" + keep + "</content></entry></feed>"
		if got := string(tagsOnly([]byte(doc))); got != doc {
			t.Errorf("tagsOnly(%q) = %q, want it unchanged", doc, got)
		}
	}
}

// FuzzTagsOnly holds reading the tags alone to reading the whole
// document on any input (`go test -fuzz FuzzTagsOnly ./sources/rss/`);
// the suite runs its seeds.
func FuzzTagsOnly(f *testing.F) {
	for _, doc := range tagsOnlyCases {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		sameAsWhole(t, "fuzzed", body)
	})
}

// BenchmarkAtomKinds reads the kinds of the farm's Atom feed from the
// whole document and from its tags alone.
func BenchmarkAtomKinds(b *testing.B) {
	body := farmFeedBody(b, feedfarm.FormatAtom)
	for _, c := range []struct {
		name string
		scan func([]byte) (atomKinds, bool)
	}{{"whole", decodeAtomKinds}, {"tags", scanAtomKinds}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if k, ok := c.scan(body); !ok || len(k.entries) != 20 {
					b.Fatalf("read %d entries, %v", len(k.entries), ok)
				}
			}
		})
	}
}
