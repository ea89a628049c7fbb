package firecrawltest

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// The API's URL messages, verbatim.
const (
	msgBadTLD      = "URL must have a valid top-level domain or be a valid path"
	msgBadProtocol = "URL uses unsupported protocol"
	msgInvalidURL  = "Invalid URL"
	msgInvalidURLz = "Invalid url" // zod's own URL check
)

// hasScheme is the API's test for a URL that names its scheme: "://"
// before any dot or colon. Anything else gets "http://" in front.
var hasScheme = regexp.MustCompile(`^[^.:]+://`)

var httpScheme = regexp.MustCompile(`(?i)^https?://`)

// tldOrPath is the API's "top-level domain" check. It runs on the whole
// URL, not on the host: somewhere a dot must be followed by two or more
// letters, digits or hyphens (Latin or Cyrillic) or an IDN "xn--" label,
// then an optional port, then a path, query, fragment or the end. So an IP
// address passes when its last part has two digits ("…99.10:8080/") and
// any host passes with a dotted file name in the path ("/a.html"), while
// "http://127.0.0.1/" and "http://localhost:8080/x" fail.
var tldOrPath = regexp.MustCompile(`(?i)(\.[a-z0-9\-\x{0400}-\x{04FF}\x{0500}-\x{052F}\x{2DE0}-\x{2DFF}\x{A640}-\x{A69F}]{2,}|\.xn--[a-z0-9-]+)(:\d+)?([/?#]|$)`)

// withScheme adds http:// as the API does when the URL names no scheme.
func withScheme(u string) string {
	if hasScheme.MatchString(u) {
		return u
	}
	return "http://" + u
}

// urlArg is the url field as the API's preprocessing sees it: a missing
// field becomes the text "undefined", other values their JavaScript text.
func urlArg(v any, present bool) string {
	switch {
	case !present:
		return "undefined"
	case v == nil:
		return "null"
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// checkTargetURL runs the API's URL checks on the url field and returns
// the URL after scheme defaulting, or the issues in zod's shape. Every
// check runs, as zod runs every refinement: a URL can fail several.
func checkTargetURL(sent string) (*url.URL, []object) {
	full := withScheme(sent)
	path := []any{"url"}
	var issues []object
	u, err := url.Parse(full)
	if err != nil || u.Host == "" {
		issues = append(issues, object{{"validation", "url"}, {"code", "invalid_string"}, {"message", msgInvalidURLz}, {"path", path}})
	}
	if !httpScheme.MatchString(full) {
		issues = append(issues, custom(path, msgBadProtocol))
	}
	if !tldOrPath.MatchString(full) {
		issues = append(issues, custom(path, msgBadTLD))
	}
	if !validURL(full, u, err) {
		issues = append(issues, custom(path, msgInvalidURL))
	}
	if len(issues) > 0 {
		return nil, issues
	}
	return u, nil
}

// validURL is the API's second check: the URL must parse, be http(s), and
// carry exactly one colon before its first dot, the scheme's. A port
// written before any dot ("http://localhost:8080/a.html") fails it.
func validURL(full string, u *url.URL, parseErr error) bool {
	if parseErr != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	head, _, _ := strings.Cut(full, ".")
	return strings.Count(head, ":") == 1
}
