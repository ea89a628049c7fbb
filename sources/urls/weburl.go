package urls

// Absolute below resolves the links feeds and pages carry into absolute
// web (http or https) URLs: the one resolver the feed parser (sources/rss)
// and the HTML extractor (sources/extract) share.

import (
	"net/url"
	"strings"
)

// Absolute returns ref resolved against base (RFC 3986) when the result is
// an http or https URL with a host, and "" otherwise: an empty or
// unparsable ref, another scheme (mailto:, javascript:, data:), or a
// relative ref without a base. A nil base resolves nothing, so only refs
// that are absolute already pass; that is how ids that must not be
// resolved (a relative GUID is an opaque id, not a link) are read.
func Absolute(base *url.URL, ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return ""
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}
