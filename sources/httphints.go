package sources

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// maxHeaderDelay bounds delays read from headers (max-age, Age,
// Retry-After seconds): a year is beyond any sensible pause and keeps the
// arithmetic away from overflow. The scheduling policy bounds them much
// more tightly, and says so.
const maxHeaderDelay = 365 * 24 * time.Hour

// HTTPHints reads the scheduling hints of an HTTP response's headers: the
// freshness it grants (Cache-Control max-age less Age, else Expires less
// Date), Retry-After, and the WebSub hub and self Link headers, resolved
// against base (the URL the response came from). now is when the response
// arrived. It reads a 304's headers as well as a 200's: a 304 refreshes
// the freshness of what was stored.
func HTTPHints(h http.Header, base string, now time.Time) Hints {
	var out Hints
	age := headerSeconds(h.Get("Age"))
	fresh, hasMaxAge, noCache := cacheControl(h.Values("Cache-Control"))
	switch {
	case noCache:
		// The server wants every request revalidated: no freshness hint.
	case hasMaxAge:
		d := max(0, fresh-age)
		out.MaxAge = &d
	default:
		out.Expires = expiresAt(h, now, age)
	}
	out.RetryAfter = ParseRetryAfter(h.Get("Retry-After"), now)
	out.Hubs, out.Self = linkHeaders(h.Values("Link"), base)
	return out
}

// cacheControl reads max-age from Cache-Control directives (all header
// lines together). noCache is set by no-store and no-cache. A max-age that
// is not a non-negative integer is ignored, as RFC 9111 asks.
func cacheControl(values []string) (maxAge time.Duration, has, noCache bool) {
	for _, v := range values {
		for _, dir := range strings.Split(v, ",") {
			name, arg, _ := strings.Cut(strings.TrimSpace(dir), "=")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "no-store", "no-cache":
				noCache = true
			case "max-age":
				arg = strings.Trim(strings.TrimSpace(arg), `"`)
				if d, ok := seconds(arg); ok {
					maxAge, has = d, true
				}
			}
		}
	}
	return maxAge, has, noCache
}

// expiresAt is when the response goes stale by Expires, on our clock:
// the lifetime is Expires − Date (the server's clock against itself), so a
// server whose clock is off still gets the lifetime it meant. An
// unreadable Expires ("0", "-1") means already stale (RFC 9111 5.3).
func expiresAt(h http.Header, now time.Time, age time.Duration) time.Time {
	raw := strings.TrimSpace(h.Get("Expires"))
	if raw == "" {
		return time.Time{}
	}
	exp, err := http.ParseTime(raw)
	if err != nil {
		return time.Time{}
	}
	origin := now
	if date, err := http.ParseTime(strings.TrimSpace(h.Get("Date"))); err == nil {
		origin = date
	}
	lifetime := min(exp.Sub(origin), maxHeaderDelay) - age
	if lifetime <= 0 {
		return time.Time{}
	}
	return now.Add(lifetime)
}

// ParseRetryAfter reads a Retry-After value: delay-seconds or an
// HTTP-date. Zero when absent, unreadable or already past.
func ParseRetryAfter(v string, now time.Time) time.Time {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}
	}
	if d, ok := seconds(v); ok {
		return now.Add(d)
	}
	t, err := http.ParseTime(v)
	if err != nil || !t.After(now) {
		return time.Time{}
	}
	return t
}

// seconds reads a delta-seconds value (digits only), capped at a year.
func seconds(v string) (time.Duration, bool) {
	if v == "" || strings.TrimLeft(v, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n > int64(maxHeaderDelay/time.Second) {
		// Digits only, so the error is overflow: as long as it gets.
		return maxHeaderDelay, true
	}
	return time.Duration(n) * time.Second, true
}

func headerSeconds(v string) time.Duration {
	d, _ := seconds(strings.TrimSpace(v))
	return d
}

// linkHeaders reads RFC 8288 Link header values for rel="hub" and
// rel="self" targets, made absolute against base; only http(s) targets
// are kept.
func linkHeaders(values []string, base string) (hubs []string, self string) {
	baseURL, _ := url.Parse(base)
	for _, v := range values {
		for _, link := range splitLinks(v) {
			target, rels := parseLink(link)
			abs := absoluteURL(target, baseURL)
			if abs == "" {
				continue
			}
			for _, rel := range rels {
				switch rel {
				case "hub":
					if !slices.Contains(hubs, abs) {
						hubs = append(hubs, abs)
					}
				case "self":
					if self == "" {
						self = abs
					}
				}
			}
		}
	}
	return hubs, self
}

// splitLinks splits a Link header value at the commas that separate links,
// not at commas inside <…> or quoted strings.
func splitLinks(v string) []string {
	var out []string
	inURI, inQuote, start := false, false, 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case inQuote:
			if c == '\\' {
				i++
			} else if c == '"' {
				inQuote = false
			}
		case c == '"':
			inQuote = true
		case c == '<':
			inURI = true
		case c == '>':
			inURI = false
		case c == ',' && !inURI:
			out = append(out, v[start:i])
			start = i + 1
		}
	}
	return append(out, v[start:])
}

// parseLink reads `<target>; rel="a b"; …`: the target and the
// lower-cased relation types.
func parseLink(link string) (target string, rels []string) {
	link = strings.TrimSpace(link)
	if !strings.HasPrefix(link, "<") {
		return "", nil
	}
	end := strings.IndexByte(link, '>')
	if end < 0 {
		return "", nil
	}
	target = link[1:end]
	for _, param := range strings.Split(link[end+1:], ";") {
		name, val, ok := strings.Cut(strings.TrimSpace(param), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(name), "rel") {
			continue
		}
		val = strings.Trim(strings.TrimSpace(val), `"`)
		rels = append(rels, strings.Fields(strings.ToLower(val))...)
		break // RFC 8288: only the first rel counts
	}
	return target, rels
}

// absoluteURL resolves ref against base and keeps it only when it is an
// http(s) URL with a host.
func absoluteURL(ref string, base *url.URL) string {
	u, err := url.Parse(strings.TrimSpace(ref))
	if err != nil || ref == "" {
		return ""
	}
	if !u.IsAbs() && base != nil && base.IsAbs() {
		u = base.ResolveReference(u)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}
