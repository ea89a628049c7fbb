package rss

import (
	"html"
	"net/url"
	"strings"

	"github.com/mmcdole/gofeed"
	ext "github.com/mmcdole/gofeed/extensions"

	"github.com/feedpoller/feedpoller/sources/urls"
)

// itemMedia is what Media RSS (and image enclosures) say about an item
// that a reader shows: one picture and a description.
type itemMedia struct {
	image       string
	description string // HTML
}

// mediaOf gathers an item's Media RSS: elements on the item itself, in
// media:group (YouTube's feeds put everything there) and inside
// media:content. The first thumbnail wins, then the first image content,
// then an image enclosure; the first non-empty description wins.
func mediaOf(it *gofeed.Item, base *url.URL) itemMedia {
	var m itemMedia
	scopes := []map[string][]ext.Extension{it.Extensions["media"]}
	for i := 0; i < len(scopes); i++ {
		for _, key := range []string{"group", "content"} {
			for _, e := range scopes[i][key] {
				scopes = append(scopes, e.Children)
			}
		}
	}
	var contentImage string
	for _, s := range scopes {
		for _, th := range s["thumbnail"] {
			if m.image == "" {
				m.image = urls.Absolute(base, th.Attrs["url"])
			}
		}
		for _, c := range s["content"] {
			medium, typ := strings.ToLower(c.Attrs["medium"]), strings.ToLower(c.Attrs["type"])
			if contentImage == "" && (medium == "image" || strings.HasPrefix(typ, "image/")) {
				contentImage = urls.Absolute(base, c.Attrs["url"])
			}
		}
		for _, d := range s["description"] {
			if m.description != "" || strings.TrimSpace(d.Value) == "" {
				continue
			}
			if strings.EqualFold(strings.TrimSpace(d.Attrs["type"]), "html") {
				m.description = strings.TrimSpace(d.Value)
			} else {
				m.description = textToHTML(d.Value) // Media RSS: plain unless type="html"
			}
		}
	}
	if m.image == "" {
		m.image = contentImage
	}
	if m.image == "" {
		for _, e := range it.Enclosures {
			if e != nil && strings.HasPrefix(strings.ToLower(e.Type), "image/") {
				if m.image = urls.Absolute(base, e.URL); m.image != "" {
					break
				}
			}
		}
	}
	return m
}

// html is the media as an HTML fragment: the picture, then the
// description. Empty when there is no media.
func (m itemMedia) html() string {
	var b strings.Builder
	if m.image != "" {
		b.WriteString(`<p><img src="` + html.EscapeString(m.image) + `" alt=""></p>`)
	}
	b.WriteString(m.description)
	return b.String()
}
