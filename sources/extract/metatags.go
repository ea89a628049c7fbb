package extract

import (
	"strings"

	"golang.org/x/net/html"
)

// metaTags returns every <meta> name/property (lower-cased) with its
// content, in document order.
func metaTags(doc *html.Node) map[string][]string {
	tags := map[string][]string{}
	walk(doc, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		if n.Data != "meta" {
			return true
		}
		content, ok := "", false
		for _, a := range n.Attr {
			if a.Key == "content" {
				content, ok = a.Val, true
			}
		}
		if !ok {
			return false
		}
		for _, k := range []string{"property", "name", "itemprop", "http-equiv"} {
			if key := strings.ToLower(strings.TrimSpace(attr(n, k))); key != "" {
				tags[key] = append(tags[key], content)
			}
		}
		return false
	})
	return tags
}

// first returns the first non-empty content among the given keys.
func firstMeta(tags map[string][]string, keys ...string) string {
	for _, k := range keys {
		for _, v := range tags[k] {
			if v = collapseSpace(v); v != "" {
				return v
			}
		}
	}
	return ""
}

// openGraphMetadata reads Open Graph, article:* and Twitter card tags.
func openGraphMetadata(tags map[string][]string) Metadata {
	m := Metadata{
		Title:        firstMeta(tags, "og:title", "twitter:title"),
		Description:  firstMeta(tags, "og:description", "twitter:description"),
		CanonicalURL: firstMeta(tags, "og:url"),
		SiteName:     firstMeta(tags, "og:site_name", "application-name"),
		Image:        firstMeta(tags, "og:image:secure_url", "og:image", "og:image:url", "twitter:image", "twitter:image:src"),
		Author:       cleanAuthor(firstMeta(tags, "article:author", "og:article:author", "book:author")),
		Published:    datePtr(firstMeta(tags, "article:published_time", "og:article:published_time", "og:published_time")),
		Modified:     datePtr(firstMeta(tags, "article:modified_time", "og:article:modified_time", "og:updated_time")),
	}
	if loc := firstMeta(tags, "og:locale"); loc != "" {
		m.Language = strings.ReplaceAll(loc, "_", "-")
	}
	for _, t := range tags["article:tag"] {
		m.Tags = append(m.Tags, splitTags(t)...)
	}
	return m
}

// metaTagMetadata reads plain <meta> names: author, description, keywords,
// Dublin Core and the many date conventions of CMSs.
func metaTagMetadata(tags map[string][]string) Metadata {
	m := Metadata{
		Title:       firstMeta(tags, "dc.title", "dcterms.title", "citation_title", "parsely-title", "sailthru.title", "title"),
		Author:      cleanAuthor(firstMeta(tags, "author", "dc.creator", "dcterms.creator", "citation_author", "parsely-author", "sailthru.author", "byl", "twitter:creator")),
		Description: firstMeta(tags, "description", "dc.description", "dcterms.description", "dcterms.abstract"),
		Language:    firstMeta(tags, "dc.language", "dcterms.language", "content-language", "language"),
		Published: datePtr(firstMeta(tags, "dc.date.issued", "dcterms.issued", "dc.date", "dcterms.date", "dc.date.created",
			"dcterms.created", "citation_publication_date", "citation_date", "parsely-pub-date", "sailthru.date",
			"publish-date", "publishdate", "publish_date", "pubdate", "date", "article.published", "datepublished", "created")),
		Modified: datePtr(firstMeta(tags, "dcterms.modified", "dc.date.modified", "last-modified", "article.updated", "datemodified", "revised")),
	}
	if strings.HasPrefix(m.Author, "@") {
		m.Author = ""
	}
	kw := firstMeta(tags, "keywords", "news_keywords", "parsely-tags", "sailthru.tags", "dc.subject")
	if kw != "" {
		m.Tags = splitTags(kw)
	}
	return m
}
