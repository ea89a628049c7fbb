package feedfarm

import (
	"bytes"
	"strconv"
	"time"
)

// guid is the stable, farm-unique identifier of item k of feed n.
func (f *Farm) guid(n, k int) string {
	return "urn:feedfarm:" + strconv.FormatInt(f.opts.Seed, 10) + ":" + strconv.Itoa(n) + ":" + strconv.Itoa(k)
}

// siteOf is the address feed n's items and site link point at: its own
// site with Options.Sites, the farm's (base) otherwise.
func (f *Farm) siteOf(base string, n int) string {
	if f.opts.Sites {
		return "http://feed" + strconv.Itoa(n) + ".example"
	}
	return base
}

// writeRSS writes feed n at version v as RSS 2.0, the body of every item in
// content:encoded (CDATA: the generated HTML never contains "]]>", and the
// only outside text in it, the host, is escaped).
func (f *Farm) writeRSS(buf *bytes.Buffer, base string, n int, v uint64) {
	top := f.topItem(v)
	buf.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom">
<channel>
<title>`)
	escapeTo(buf, f.feedTitle(n))
	buf.WriteString("</title>\n<link>")
	escapeTo(buf, f.siteOf(base, n))
	buf.WriteString("/</link>\n<atom:link rel=\"self\" type=\"application/rss+xml\" href=\"")
	escapeTo(buf, base)
	buf.WriteString("/feed/" + strconv.Itoa(n) + ".xml\"/>\n<description>Synthetic feed ")
	buf.WriteString(strconv.Itoa(n))
	buf.WriteString(" of the feed farm.</description>\n<language>en</language>\n<lastBuildDate>")
	buf.WriteString(f.published(n, top).Format(time.RFC1123Z))
	buf.WriteString("</lastBuildDate>\n")
	for k := top; k > top-f.opts.ItemsPerFeed; k-- {
		it := f.itemMeta(n, k)
		buf.WriteString("<item>\n<title>")
		escapeTo(buf, it.title)
		buf.WriteString("</title>\n<link>")
		escapeTo(buf, f.siteOf(base, n))
		buf.WriteString(itemPath(n, k))
		buf.WriteString("</link>\n<guid isPermaLink=\"false\">")
		buf.WriteString(f.guid(n, k))
		buf.WriteString("</guid>\n<pubDate>")
		buf.WriteString(it.published.Format(time.RFC1123Z))
		buf.WriteString("</pubDate>\n<dc:creator>")
		escapeTo(buf, it.author)
		buf.WriteString("</dc:creator>\n<category>")
		buf.WriteString(it.category)
		buf.WriteString("</category>\n<description>")
		escapeTo(buf, it.summary)
		buf.WriteString("</description>\n<content:encoded><![CDATA[")
		f.writeBody(buf, base, n, k)
		buf.WriteString("]]></content:encoded>\n</item>\n")
	}
	buf.WriteString("</channel>\n</rss>\n")
}

// writeAtom writes feed n at version v as Atom 1.0, the body of every entry
// escaped inside <content type="html"> as most Atom publishers do.
func (f *Farm) writeAtom(buf *bytes.Buffer, base string, n int, v uint64) {
	top := f.topItem(v)
	buf.WriteString(`<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
<title>`)
	escapeTo(buf, f.feedTitle(n))
	buf.WriteString("</title>\n<id>urn:feedfarm:")
	buf.WriteString(strconv.FormatInt(f.opts.Seed, 10) + ":" + strconv.Itoa(n))
	buf.WriteString("</id>\n<link rel=\"self\" type=\"application/atom+xml\" href=\"")
	escapeTo(buf, base)
	buf.WriteString("/feed/" + strconv.Itoa(n) + ".xml\"/>\n<link rel=\"alternate\" type=\"text/html\" href=\"")
	escapeTo(buf, f.siteOf(base, n))
	buf.WriteString("/\"/>\n<subtitle>Synthetic feed ")
	buf.WriteString(strconv.Itoa(n))
	buf.WriteString(" of the feed farm.</subtitle>\n<updated>")
	buf.WriteString(f.published(n, top).Format(time.RFC3339))
	buf.WriteString("</updated>\n")
	body := f.getBuf()
	defer f.putBuf(body)
	for k := top; k > top-f.opts.ItemsPerFeed; k-- {
		it := f.itemMeta(n, k)
		buf.WriteString("<entry>\n<title>")
		escapeTo(buf, it.title)
		buf.WriteString("</title>\n<id>")
		buf.WriteString(f.guid(n, k))
		buf.WriteString("</id>\n<link rel=\"alternate\" type=\"text/html\" href=\"")
		escapeTo(buf, f.siteOf(base, n))
		buf.WriteString(itemPath(n, k))
		buf.WriteString("\"/>\n<published>")
		ts := it.published.Format(time.RFC3339)
		buf.WriteString(ts)
		buf.WriteString("</published>\n<updated>")
		buf.WriteString(ts)
		buf.WriteString("</updated>\n<author><name>")
		escapeTo(buf, it.author)
		buf.WriteString("</name></author>\n<category term=\"")
		buf.WriteString(it.category)
		buf.WriteString("\"/>\n<summary>")
		escapeTo(buf, it.summary)
		buf.WriteString("</summary>\n<content type=\"html\">")
		body.Reset()
		f.writeBody(body, base, n, k)
		escapeTo(buf, body.Bytes())
		buf.WriteString("</content>\n</entry>\n")
	}
	buf.WriteString("</feed>\n")
}

// writeItemPage writes the article page of item k of feed n, shaped like a
// news site's: head metadata, navigation, the article, a footer.
func (f *Farm) writeItemPage(buf *bytes.Buffer, base string, n, k int) {
	it := f.itemMeta(n, k)
	ts := it.published.Format(time.RFC3339)
	buf.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>")
	escapeTo(buf, it.title)
	buf.WriteString("</title>\n<meta name=\"description\" content=\"")
	escapeTo(buf, it.summary)
	buf.WriteString("\">\n<meta property=\"og:title\" content=\"")
	escapeTo(buf, it.title)
	buf.WriteString("\">\n<meta property=\"article:published_time\" content=\"")
	buf.WriteString(ts)
	buf.WriteString("\">\n<link rel=\"canonical\" href=\"")
	escapeTo(buf, base)
	buf.WriteString(itemPath(n, k))
	buf.WriteString("\">\n</head>\n<body>\n<header><nav><a href=\"/\">Home</a> · <a href=\"/feed/")
	buf.WriteString(strconv.Itoa(n))
	buf.WriteString(".xml\">Feed</a> · <a href=\"/\">")
	buf.WriteString(it.category)
	buf.WriteString("</a></nav></header>\n<main>\n<article>\n<h1>")
	escapeTo(buf, it.title)
	buf.WriteString("</h1>\n<p class=\"byline\">By ")
	escapeTo(buf, it.author)
	buf.WriteString(" · <time datetime=\"")
	buf.WriteString(ts)
	buf.WriteString("\">")
	buf.WriteString(it.published.Format("2 January 2006"))
	buf.WriteString("</time></p>\n")
	f.writeBody(buf, base, n, k)
	buf.WriteString("</article>\n</main>\n<footer><p>© Feed farm. Synthetic content for load tests.</p></footer>\n</body>\n</html>\n")
}
