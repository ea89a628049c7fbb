package urls

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// ErrUnsupportedScheme is wrapped by Normalize for URLs that are not http or
// https (mailto:, javascript:, ftp:, relative references, ...).
var ErrUnsupportedScheme = errors.New("unsupported scheme")

// ErrInvalidURL is wrapped by Normalize for URLs that cannot be parsed or
// lack what an article URL needs (a host).
var ErrInvalidURL = errors.New("invalid url")

// idnaProfile maps host names as a browser does for lookup (case folding,
// width folding, punycode), without the STD3 rules that would reject
// underscores, which real hosts use.
var idnaProfile = idna.New(
	idna.MapForLookup(),
	idna.StrictDomainName(false),
	idna.Transitional(false),
)

// Normalize returns the canonical form of an http(s) URL, as described in
// the package documentation. It fails, naming the problem, on URLs that do
// not parse, have no host, or use another scheme.
func Normalize(raw string) (string, error) {
	return normalize(raw, normalizeQuery)
}

// SourceKey is the form a feed source's URL is stored and compared in, so
// that one feed cannot be added twice by writing its URL another way. It
// is Normalize with the query kept as the publisher wrote it: every
// parameter (tracking-looking ones too) in its order, because a feed URL's
// parameters often select the feed itself (?format=rss, ?tag=go,
// ?utm_source=... that the server requires). Only percent-encoding is made
// canonical and an empty query ("…/feed?") is dropped, as is the fragment,
// which is never sent to the server.
func SourceKey(raw string) (string, error) {
	return normalize(raw, sourceQuery)
}

func normalize(raw string, query func(string) string) (string, error) {
	s := strings.TrimSpace(raw)
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("normalize url %s: %w: %w", short(raw), ErrInvalidURL, unwrapURLError(err))
	}
	scheme := strings.ToLower(u.Scheme)
	switch scheme {
	case "http", "https":
	case "":
		return "", fmt.Errorf("normalize url %s: %w: no scheme (want http or https)", short(raw), ErrUnsupportedScheme)
	default:
		return "", fmt.Errorf("normalize url %s: %w %q (want http or https)", short(raw), ErrUnsupportedScheme, scheme)
	}
	if u.Opaque != "" || u.Host == "" {
		return "", fmt.Errorf("normalize url %s: %w: no host", short(raw), ErrInvalidURL)
	}
	host, err := normalizeHost(u.Hostname())
	if err != nil {
		return "", fmt.Errorf("normalize url %s: %w: %w", short(raw), ErrInvalidURL, err)
	}
	port, err := normalizePort(scheme, u.Port())
	if err != nil {
		return "", fmt.Errorf("normalize url %s: %w: %w", short(raw), ErrInvalidURL, err)
	}

	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(scheme)
	b.WriteString("://")
	if u.User != nil && u.User.String() != "" { // a bare "@" carries nothing
		b.WriteString(u.User.String())
		b.WriteByte('@')
	}
	b.WriteString(host)
	if port != "" {
		b.WriteByte(':')
		b.WriteString(port)
	}
	b.WriteString(normalizePath(u.EscapedPath()))
	if q := query(u.RawQuery); q != "" {
		b.WriteByte('?')
		b.WriteString(q)
	}
	return b.String(), nil
}

// normalizeHost lower-cases and IDNA-maps a host name, or canonicalises an
// IP literal. The result is what goes between "//" and the port.
func normalizeHost(h string) (string, error) {
	if strings.Contains(h, ":") { // only IPv6 literals contain a colon here
		addr, err := netip.ParseAddr(h)
		if err != nil || !addr.Is6() {
			return "", fmt.Errorf("bad IPv6 literal %q", h)
		}
		return "[" + strings.ReplaceAll(addr.String(), "%", "%25") + "]", nil
	}
	if !utf8.ValidString(h) {
		return "", fmt.Errorf("host %q is not valid UTF-8", h)
	}
	ascii := strings.ToLower(h)
	if !isPlainASCIIHost(ascii) {
		var err error
		if ascii, err = idnaProfile.ToASCII(h); err != nil {
			return "", fmt.Errorf("host %q: %w", h, err)
		}
	}
	ascii = strings.TrimRight(strings.ToLower(ascii), ".")
	if ascii == "" {
		return "", errors.New("empty host")
	}
	// Punycode produced from odd input must read back as itself, or the
	// stored key could not be normalised again.
	if strings.Contains(ascii, "xn--") {
		if back, err := idnaProfile.ToASCII(ascii); err != nil || back != ascii {
			return "", fmt.Errorf("host %q does not round-trip through IDNA", h)
		}
	}
	for i := 0; i < len(ascii); i++ {
		c := ascii[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_') {
			return "", fmt.Errorf("host %q: character %q not allowed", h, c)
		}
	}
	return ascii, nil
}

// isPlainASCIIHost reports whether IDNA mapping would only lower-case h:
// the common case, which then skips the IDNA tables.
func isPlainASCIIHost(h string) bool {
	if strings.Contains(h, "xn--") {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return true
}

// normalizePort drops the scheme's default port and leading zeros.
func normalizePort(scheme, p string) (string, error) {
	if p == "" {
		return "", nil
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("bad port %q", p)
	}
	if scheme == "http" && n == 80 || scheme == "https" && n == 443 {
		return "", nil
	}
	return strconv.Itoa(n), nil
}

// normalizePath canonicalises escapes first (so "%2E%2E" is seen as "..")
// and then resolves dot segments.
func normalizePath(escaped string) string {
	p := normalizeEscapes(escaped, pathAllowed)
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	return removeDotSegments(p)
}

// removeDotSegments implements RFC 3986 §5.2.4 for an absolute path. Empty
// segments ("//") are kept: only "." and ".." carry no meaning of their own.
func removeDotSegments(p string) string {
	if !strings.Contains(p, "/.") {
		return p
	}
	segs := strings.Split(p[1:], "/")
	out := make([]string, 0, len(segs))
	trailing := false
	for _, seg := range segs {
		trailing = false
		switch seg {
		case ".":
			trailing = true
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			trailing = true
		default:
			out = append(out, seg)
		}
	}
	res := "/" + strings.Join(out, "/")
	if trailing && !strings.HasSuffix(res, "/") {
		res += "/"
	}
	return res
}

type queryPair struct {
	key, value string
	hasValue   bool // "k=" and "k" are different to a server
}

// normalizeQuery drops tracking parameters and empty pairs and sorts the
// rest by key then value. The sort is stable so that identical pairs keep
// their multiplicity.
func normalizeQuery(raw string) string {
	if raw == "" {
		return ""
	}
	parts := strings.Split(raw, "&")
	pairs := make([]queryPair, 0, len(parts))
	for _, part := range parts {
		if part == "" {
			continue
		}
		k, v, has := strings.Cut(part, "=")
		p := queryPair{
			key:      normalizeEscapes(k, queryAllowed),
			value:    normalizeEscapes(v, queryValueAllowed),
			hasValue: has,
		}
		if p.key == "" && !has {
			continue
		}
		if IsTrackingParam(p.key) {
			continue
		}
		pairs = append(pairs, p)
	}
	if len(pairs) == 0 {
		return ""
	}
	sort.SliceStable(pairs, func(i, j int) bool {
		if pairs[i].key != pairs[j].key {
			return pairs[i].key < pairs[j].key
		}
		if pairs[i].value != pairs[j].value {
			return pairs[i].value < pairs[j].value
		}
		return !pairs[i].hasValue && pairs[j].hasValue
	})
	var b strings.Builder
	b.Grow(len(raw))
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p.key)
		if p.hasValue {
			b.WriteByte('=')
			b.WriteString(p.value)
		}
	}
	return b.String()
}

// sourceQuery canonicalises a source URL's query escapes and drops empty
// pairs ("a=1&&b=2"), keeping every other pair in its place.
func sourceQuery(raw string) string {
	if raw == "" {
		return ""
	}
	parts := strings.Split(raw, "&")
	kept := parts[:0]
	for _, part := range parts {
		if part == "" {
			continue
		}
		k, v, has := strings.Cut(part, "=")
		k = normalizeEscapes(k, queryAllowed)
		if has {
			k += "=" + normalizeEscapes(v, queryValueAllowed)
		}
		kept = append(kept, k)
	}
	return strings.Join(kept, "&")
}

// short quotes a URL for an error message, cut so that a hostile
// multi-megabyte "URL" does not end up in logs whole.
func short(s string) string {
	const max = 200
	if len(s) > max {
		return strconv.Quote(s[:max]) + "..."
	}
	return strconv.Quote(s)
}

// unwrapURLError strips *url.Error's own copy of the URL, which short
// already reports.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// Absolute resolves the links feeds and pages carry into absolute
// web (http or https) URLs: the one resolver the feed parser (sources/rss)
// and the HTML extractor (sources/extract) share.

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
