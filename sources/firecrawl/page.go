package firecrawl

import (
	"strconv"
	"strings"
)

// Page is one scraped page.
type Page struct {
	// HTML is Firecrawl's cleaned HTML of the page (no <head>).
	HTML string
	// Metadata is data.metadata exactly as Firecrawl sent it, keys matched
	// case-sensitively: "title", "ogTitle", "publishedTime" and raw meta
	// names such as "og:image" or "Title". Values are JSON types: string,
	// []any of strings, float64, ... Never nil.
	Metadata map[string]any
	// StatusCode is the target's own HTTP status (metadata.statusCode), 0
	// when Firecrawl did not report a usable one.
	StatusCode int
	// FinalURL is where the target's redirects ended (metadata.url).
	FinalURL string
}

// MetaString returns a metadata field as sent: a string as is, or the first
// non-empty string of a string array (a repeated meta tag). Anything else,
// or an absent key, gives "".
func (p *Page) MetaString(key string) string {
	if p == nil {
		return ""
	}
	switch v := p.Metadata[key].(type) {
	case string:
		return v
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok && strings.TrimSpace(s) != "" {
				return s
			}
		}
	}
	return ""
}

// MetaStrings returns a metadata field as a list: a string gives one
// element, a string array its string elements; anything else nil.
func (p *Page) MetaStrings(key string) []string {
	if p == nil {
		return nil
	}
	switch v := p.Metadata[key].(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// FirstMeta returns the first of keys whose MetaString, trimmed, is not
// empty, trimmed; "" when none is.
func (p *Page) FirstMeta(keys ...string) string {
	for _, k := range keys {
		if s := strings.TrimSpace(p.MetaString(k)); s != "" {
			return s
		}
	}
	return ""
}

// metaInt reads a metadata number, tolerating a numeric string.
func metaInt(v any) int {
	switch n := v.(type) {
	case float64:
		if n >= 0 && n < 1000 && n == float64(int(n)) {
			return int(n)
		}
	case string:
		if i, err := strconv.Atoi(strings.TrimSpace(n)); err == nil && i >= 0 && i < 1000 {
			return i
		}
	}
	return 0
}
