package opml

import "strings"

// Outline is one feed or web page of an OPML document.
type Outline struct {
	// Text and Title are the outline's attributes as written; readers
	// often write only text.
	Text  string
	Title string
	// Type is the lower-cased type attribute ("rss" for feeds; often empty).
	Type string
	// XMLURL is the feed URL; empty for a web page outline.
	XMLURL string
	// HTMLURL is the site or page URL (the url attribute of a type="link"
	// outline counts as one).
	HTMLURL string
	// Category is the path of the folders the outline sits in, joined with
	// "/", or else the first entry of its category attribute; empty when
	// it has neither.
	Category string
	// Line is where the outline starts in the document (1-based; 0 for
	// outlines not read from a document).
	Line int
	// WebPage marks an outline feedpoller exported for a web source
	// (the feedpoller:source="web" attribute): a page to watch, imported
	// as a web source whether or not web pages are enabled.
	WebPage bool
}

// Namespace is the XML namespace of the attributes feedpoller adds to the
// outlines it exports; other readers ignore them.
const Namespace = "https://github.com/feedpoller/feedpoller/opml"

// Name is what the outline calls itself: its title, else its text.
func (o Outline) Name() string {
	if o.Title != "" {
		return o.Title
	}
	return o.Text
}

// IsFeed reports whether the outline names a feed URL.
func (o Outline) IsFeed() bool { return o.XMLURL != "" }

// categoryAttr is the first category of an OPML 2.0 category attribute,
// a comma-separated list of slash-delimited paths ("/Tech/Go,/news").
func categoryAttr(v string) string {
	first, _, _ := strings.Cut(v, ",")
	return strings.Trim(strings.TrimSpace(first), "/")
}
