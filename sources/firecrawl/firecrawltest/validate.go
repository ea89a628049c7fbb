package firecrawltest

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"
)

const (
	windowLength     = time.Minute
	defaultTimeoutMS = 30000
	// slowFormatTimeoutMS is what the API raises a default timeout to for
	// formats that need an LLM or the change-tracking database.
	slowFormatTimeoutMS = 60000
	maxWaitForMS        = 60000
)

// formatEnum is the v1 formats enum, in the API's order.
var formatEnum = []string{"markdown", "html", "rawHtml", "links", "screenshot", "screenshot@fullPage", "extract", "json", "summary", "changeTracking"}

// knownKeys are the keys the strict v1 scrape schema accepts.
var knownKeys = map[string]bool{
	"url": true, "formats": true, "onlyMainContent": true, "includeTags": true, "excludeTags": true,
	"headers": true, "waitFor": true, "timeout": true, "maxAge": true, "storeInCache": true,
	"parsePDF": true, "mobile": true, "skipTlsVerification": true, "removeBase64Images": true,
	"blockAds": true, "proxy": true, "location": true, "geolocation": true, "actions": true,
	"jsonOptions": true, "extract": true, "changeTrackingOptions": true, "zeroDataRetention": true,
	"origin": true, "integration": true, "agent": true, "fastMode": true,
}

// scrapeRequest is a validated scrape body.
type scrapeRequest struct {
	sent       string   // url exactly as the client sent it
	normalised *url.URL // after scheme defaulting
	formats    []string
	timeoutMS  int // effective server-side budget
	waitForMS  int
	maxAgeMS   int
}

func (r scrapeRequest) wants(format string) bool {
	for _, f := range r.formats {
		if f == format {
			return true
		}
	}
	return false
}

// validate checks a body the way the API's zod schema does and returns the
// issues in zod's shape.
func validate(body any) (scrapeRequest, []object) {
	obj, ok := body.(map[string]any)
	if !ok {
		return scrapeRequest{}, []object{{
			{"code", "invalid_type"}, {"expected", "object"}, {"received", jsType(body)},
			{"path", []any{}}, {"message", "Expected object, received " + jsType(body)},
		}}
	}
	var issues []object
	var unknown []string
	for k := range obj {
		if !knownKeys[k] && !strings.HasPrefix(k, "__experimental_") {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		issues = append(issues, object{
			{"code", "unrecognized_keys"}, {"keys", unknown}, {"path", []any{}},
			{"message", "Unrecognized key(s) in object: '" + strings.Join(unknown, "', '") + "'"},
		})
	}

	req := scrapeRequest{formats: []string{"markdown"}, timeoutMS: defaultTimeoutMS}
	rawURL, present := obj["url"]
	req.sent = urlArg(rawURL, present)
	u, urlIssues := checkTargetURL(req.sent)
	issues = append(issues, urlIssues...)
	req.normalised = u

	if v, present := obj["formats"]; present {
		list, ok := v.([]any)
		if !ok {
			issues = append(issues, invalidType([]any{"formats"}, "array", v))
		} else {
			req.formats = nil
			for i, f := range list {
				s, _ := f.(string)
				if !contains(formatEnum, s) {
					issues = append(issues, object{
						{"received", f}, {"code", "invalid_enum_value"}, {"options", formatEnum},
						{"path", []any{"formats", i}},
						{"message", fmt.Sprintf("Invalid enum value. Expected '%s', received '%v'", strings.Join(formatEnum, "' | '"), f)},
					})
					continue
				}
				req.formats = append(req.formats, s)
			}
		}
	}
	if req.wants("screenshot") && req.wants("screenshot@fullPage") {
		issues = append(issues, custom([]any{"formats"}, "You may only specify either screenshot or screenshot@fullPage"))
	}
	if req.wants("changeTracking") && !req.wants("markdown") {
		issues = append(issues, custom([]any{"formats"}, "The changeTracking format requires the markdown format to be specified as well"))
	}
	_, hasJSONOptions := obj["jsonOptions"]
	if req.wants("json") != hasJSONOptions {
		issues = append(issues, custom([]any{"jsonOptions"}, "When 'json' format is specified, jsonOptions must be provided, and vice versa"))
	}

	timeout, timeoutSent, issue := intField(obj, "timeout")
	issues = appendIssue(issues, issue)
	if timeoutSent && issue == nil {
		if timeout <= 0 {
			issues = append(issues, object{
				{"code", "too_small"}, {"minimum", 0}, {"type", "number"}, {"inclusive", false}, {"exact", false},
				{"message", "Number must be greater than 0"}, {"path", []any{"timeout"}},
			})
		}
		req.timeoutMS = timeout
	} else if req.wants("json") || req.wants("extract") || req.wants("changeTracking") {
		req.timeoutMS = slowFormatTimeoutMS
	}
	waitFor, waitSent, issue := intField(obj, "waitFor")
	issues = appendIssue(issues, issue)
	if waitSent && issue == nil {
		switch {
		case waitFor < 0:
			issues = append(issues, object{
				{"code", "too_small"}, {"minimum", 0}, {"type", "number"}, {"inclusive", true}, {"exact", false},
				{"message", "Number must be greater than or equal to 0"}, {"path", []any{"waitFor"}},
			})
		case waitFor > maxWaitForMS:
			issues = append(issues, object{
				{"code", "too_big"}, {"maximum", maxWaitForMS}, {"type", "number"}, {"inclusive", true}, {"exact", false},
				{"message", "Number must be less than or equal to 60000"}, {"path", []any{"waitFor"}},
			})
		case timeoutSent && waitFor > timeout/2:
			issues = append(issues, custom([]any{"waitFor"}, "waitFor must not exceed half of timeout"))
		}
		req.waitForMS = waitFor
	}
	maxAge, _, issue := intField(obj, "maxAge")
	issues = appendIssue(issues, issue)
	req.maxAgeMS = maxAge
	return req, issues
}

// intField reads an optional integer key.
func intField(obj map[string]any, key string) (n int, present bool, issue object) {
	v, ok := obj[key]
	if !ok {
		return 0, false, nil
	}
	num, ok := v.(json.Number)
	if !ok {
		return 0, true, invalidType([]any{key}, "number", v)
	}
	i, err := num.Int64()
	if err != nil {
		return 0, true, object{
			{"code", "invalid_type"}, {"expected", "integer"}, {"received", "float"},
			{"path", []any{key}}, {"message", "Expected integer, received float"},
		}
	}
	return int(i), true, nil
}

func appendIssue(issues []object, o object) []object {
	if o != nil {
		return append(issues, o)
	}
	return issues
}

func custom(path []any, msg string) object {
	return object{{"code", "custom"}, {"message", msg}, {"path", path}}
}

func invalidType(path []any, expected string, got any) object {
	return object{
		{"code", "invalid_type"}, {"expected", expected}, {"received", jsType(got)},
		{"path", path}, {"message", fmt.Sprintf("Expected %s, received %s", expected, jsType(got))},
	}
}

// jsType names a decoded JSON value the way zod does.
func jsType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
