package hostile

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// feedEpoch dates the well-behaved feeds' items.
var feedEpoch = time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC)

// feedDoc is a small valid RSS 2.0 feed whose items link to pages under
// base/name/, with full content, so a reader has nothing to fetch.
func feedDoc(base, name, title string, items int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/">
<channel>
<title>%s</title>
<link>%s/%s</link>
<description>%s, served by the hostile test server.</description>
`, title, base, name, title)
	for k := items - 1; k >= 0; k-- {
		fmt.Fprintf(&b, `<item>
<title>%s item %d</title>
<link>%s/%s/%d</link>
<guid>%s/%s/%d</guid>
<pubDate>%s</pubDate>
<description>Item %d of %s.</description>
<content:encoded><![CDATA[<p>Item %d of %s. It exists so that a poll of this feed has something to store.</p><p>Second paragraph, with <a href="%s/%s/%d">a link</a>.</p>]]></content:encoded>
</item>
`, title, k, base, name, k, base, name, k, feedEpoch.Add(time.Duration(k)*time.Hour).Format(time.RFC1123Z),
			k, title, k, title, base, name, k)
	}
	b.WriteString("</channel>\n</rss>\n")
	return b.String()
}

// HealthyItems is how many items each healthy feed carries.
const HealthyItems = 5

// serveHealthy answers /healthy/{n}: a valid, unchanging RSS feed with
// validators, so a correct reader gets 304 from its second poll on.
func (s *Server) serveHealthy(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 0 {
		http.NotFound(w, r)
		return
	}
	s.hit("healthy", "healthy/"+strconv.Itoa(n))
	etag := `"healthy-` + strconv.Itoa(n) + `"`
	lastMod := feedEpoch.Add(HealthyItems * time.Hour)
	w.Header().Set("ETag", etag)
	w.Header().Set("Last-Modified", lastMod.Format(http.TimeFormat))
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		if strings.Contains(inm, etag) || inm == "*" {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	} else if ims, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && !lastMod.After(ims) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeDoc(w, "application/rss+xml; charset=utf-8",
		feedDoc(s.URL(), "healthy/"+strconv.Itoa(n), "Healthy feed "+strconv.Itoa(n), HealthyItems))
}

// serveHealthyArticle answers the pages healthy feeds link to.
func (s *Server) serveHealthyArticle(w http.ResponseWriter, r *http.Request) {
	n, errN := strconv.Atoi(r.PathValue("n"))
	k, errK := strconv.Atoi(r.PathValue("k"))
	if errN != nil || errK != nil || n < 0 || k < 0 || k >= HealthyItems {
		http.NotFound(w, r)
		return
	}
	s.hit("healthy/article")
	writeDoc(w, "text/html; charset=utf-8", articlePage(fmt.Sprintf("Healthy feed %d item %d", n, k)))
}

// ManyItems is how many items /many-items carries.
const ManyItems = 100_000

// serveManyItems streams a valid feed of ManyItems short items, written as
// they are generated.
func (s *Server) serveManyItems(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/rss+xml; charset=utf-8")
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Many items</title><link>` + s.URL() + `/many-items</link><description>100 000 items</description>
`)
	base := s.URL() + "/a/"
	for k := ManyItems - 1; k >= 0; k-- {
		ks := strconv.Itoa(k)
		b.WriteString("<item><title>Item ")
		b.WriteString(ks)
		b.WriteString("</title><link>")
		b.WriteString(base)
		b.WriteString(ks)
		b.WriteString("</link></item>\n")
		if b.Len() >= 32<<10 {
			if _, err := w.Write(b.Bytes()); err != nil {
				return
			}
			b.Reset()
			if r.Context().Err() != nil {
				return
			}
		}
	}
	b.WriteString("</channel></rss>\n")
	_, _ = w.Write(b.Bytes())
}

// serveManyItemsArticle answers the pages /many-items links to.
func (s *Server) serveManyItemsArticle(w http.ResponseWriter, r *http.Request) {
	k, err := strconv.Atoi(r.PathValue("k"))
	if err != nil || k < 0 || k >= ManyItems {
		http.NotFound(w, r)
		return
	}
	writeDoc(w, "text/html; charset=utf-8", articlePage("Item "+strconv.Itoa(k)))
}

// articlePage is a plain article page with enough text to be readable.
func articlePage(title string) string {
	return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>` + title + `</title></head>
<body><article><h1>` + title + `</h1>
<p>This page belongs to the hostile test server. It is ordinary on purpose: a reader that got here has followed a feed item's link and should extract this text.</p>
<p>A second paragraph makes the page long enough for content extraction to keep it rather than treat it as an empty shell.</p>
</article></body></html>
`
}

// invalidXML is a feed whose XML breaks even a lenient parser: a bare "<"
// in text and a document that never closes.
const invalidXML = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Broken feed</title><link>{{BASE}}/invalid-xml</link>
<item><title>Fish < chips</title><link>{{BASE}}/a/1</link><description>unterminated
<item><title><<<>>></title>
`

// billionLaughs defines ten levels of entities, each ten of the one below:
// expanded, &lol9; is 10^9 "lol"s, 3 GB.
var billionLaughs = func() string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE rss [
 <!ENTITY lol "lol">
`)
	for i := 1; i <= 9; i++ {
		prev := "lol"
		if i > 1 {
			prev = "lol" + strconv.Itoa(i-1)
		}
		b.WriteString(" <!ENTITY lol" + strconv.Itoa(i) + ` "`)
		for j := 0; j < 10; j++ {
			b.WriteString("&" + prev + ";")
		}
		b.WriteString("\">\n")
	}
	b.WriteString(`]>
<rss version="2.0"><channel><title>Laughs</title><link>{{BASE}}/billion-laughs</link><description>entity bomb</description>
<item><title>&lol9;</title><link>{{BASE}}/a/2</link><guid>{{BASE}}/billion-laughs/1</guid><description>&lol9;</description></item>
</channel></rss>
`)
	return b.String()
}()

// htmlPage is an ordinary web page, offered where a feed was expected. It
// deliberately advertises no feed, so feed discovery cannot rescue it.
const htmlPage = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Welcome to our site</title></head>
<body><header><nav><a href="/">Home</a></nav></header>
<main><h1>Welcome</h1><p>This is a web page, not a feed. There is no RSS here.</p></main>
</body></html>
`

// pdfDoc is a minimal one-page PDF.
const pdfDoc = "%PDF-1.4\n" +
	"1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n" +
	"2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n" +
	"3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj\n" +
	"trailer << /Root 1 0 R >>\n%%EOF\n"

// wrongCharsetLatin1Declared says ISO-8859-1 but is UTF-8.
const wrongCharsetLatin1Declared = `<?xml version="1.0" encoding="ISO-8859-1"?>
<rss version="2.0"><channel><title>Café naïve</title><link>{{BASE}}/wrong-charset</link><description>Prices in €</description>
<item><title>Café crème costs 3 €</title><link>{{BASE}}/a/3</link><guid>{{BASE}}/wrong-charset/1</guid><description>Déjà vu, naïve café.</description></item>
</channel></rss>
`

// wrongCharsetUTF8Declared says UTF-8 but is ISO-8859-1: é is the lone byte
// 0xE9 and ï is 0xEF, neither valid UTF-8.
const wrongCharsetUTF8Declared = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" +
	"<rss version=\"2.0\"><channel><title>Caf\xe9 na\xefve</title><link>{{BASE}}/wrong-charset-reverse</link><description>Latin-1 bytes</description>\n" +
	"<item><title>Caf\xe9 cr\xe8me</title><link>{{BASE}}/a/4</link><guid>{{BASE}}/wrong-charset-reverse/1</guid><description>D\xe9j\xe0 vu.</description></item>\n" +
	"</channel></rss>\n"

// markupFeed is a feed whose text is full of markup a page must show as
// text. Its titles carry tags as escaped text (a title is text, so a
// reader shows "<script>" literally); its content carries real HTML that
// extraction must clean.
const markupFeed = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel>
<title>&lt;script&gt;alert("channel")&lt;/script&gt; Markup News</title>
<link>{{BASE}}/markup</link><description>titles and summaries full of markup</description>
<item><title>&lt;img src=x onerror=alert(1)&gt;Breaking: &lt;b&gt;bold&lt;/b&gt; claims</title>
<link>{{BASE}}/a/5</link><guid>{{BASE}}/markup/1</guid>
<description>&lt;script&gt;alert(3)&lt;/script&gt;Summary with &lt;a href="javascript:alert(2)"&gt;a script link&lt;/a&gt;.</description>
<content:encoded><![CDATA[<p onclick="alert(4)">The body of a markup story about escaping in feeds.</p><p><a href="javascript:alert(5)">js link</a> and <a href="/a/6">a relative link</a></p><p><img src="http://tracker.invalid/pixel.gif" alt="tracking pixel"></p><iframe src="http://evil.invalid/"></iframe><p>Enough words here to make an article about markup and escaping in feeds, which a console shows as text.</p>]]></content:encoded>
</item>
<item><title>"&gt;&lt;svg onload=alert(6)&gt; Second markup story</title><link>{{BASE}}/a/7</link><guid>{{BASE}}/markup/2</guid>
<description>Plain &amp;lt;i&amp;gt;double-escaped&amp;lt;/i&amp;gt; text about markup.</description></item>
</channel></rss>
`
