package firecrawltest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
)

// The API's error texts, verbatim.
const (
	msgInvalidJSON  = "Bad request, malformed JSON"
	msgUnauthorized = "Unauthorized"
	msgTokenMissing = "Unauthorized: Token missing"
	msgInvalidToken = "Unauthorized: Invalid token"
	msgNoCredits    = "Insufficient credits to perform this request. For more credits, you can upgrade your plan at https://firecrawl.dev/pricing or try changing the request limit to a lower value."
	msgBlocklisted  = "This website is no longer supported, please reach out to help@firecrawl.com for more info on how to activate it on your account."
	msgRateLimit    = "Rate limit exceeded. Consumed (req/min): %d, Remaining (req/min): 0. Upgrade your plan at https://firecrawl.dev/pricing for increased rate limits or please retry after %ds, resets at %s"
	// jsDateLayout is JavaScript's Date.prototype.toString in UTC.
	jsDateLayout = "Mon Jan 02 2006 15:04:05 GMT-0700 (Coordinated Universal Time)"
)

// outcome is the API's answer before it is written.
type outcome struct {
	status int
	header http.Header
	body   any
	// success is the data object of a 200 answer, which shape faults edit.
	success object
}

func failure(status int, code, msg string) outcome {
	return outcome{status: status, body: errorBody(code, msg)}
}

// process runs the API's middleware chain in its real order, which decides
// which error wins when several apply (a bad key and a bad body: 401).
func (s *Server) process(r *http.Request, raw []byte) outcome {
	body, ok := parseBody(raw)
	if !ok {
		return failure(http.StatusBadRequest, "BAD_REQUEST_INVALID_JSON", msgInvalidJSON)
	}
	key, out, ok := s.authenticate(r)
	if !ok {
		return out
	}
	if out, limited := s.rateLimit(key); limited {
		return out
	}
	if s.Credits() == 0 {
		return failure(http.StatusPaymentRequired, "", msgNoCredits)
	}
	obj, _ := body.(map[string]any)
	if sent, ok := obj["url"].(string); ok && s.blocklisted(sent) {
		return failure(http.StatusForbidden, "", msgBlocklisted)
	}
	req, details := validate(body)
	if len(details) > 0 {
		return outcome{status: http.StatusBadRequest, body: object{
			{"success", false}, {"code", "BAD_REQUEST"}, {"error", "Bad Request"}, {"details", details},
		}}
	}
	return s.runScenario(r, req)
}

// parseBody mimics Express's strict JSON body parser: an empty body is {},
// anything but an object or array is malformed.
func parseBody(raw []byte) (any, bool) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return map[string]any{}, true
	}
	if trimmed[0] != '{' && trimmed[0] != '[' {
		return nil, false
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, false
	}
	return v, true
}

func (s *Server) authenticate(r *http.Request) (key string, out outcome, ok bool) {
	h := r.Header.Get("Authorization")
	parts := strings.Split(h, " ")
	token := ""
	if len(parts) > 1 {
		token = parts[1]
	}
	if s.cfg.APIKey == "" {
		return token, outcome{}, true
	}
	switch {
	case h == "":
		return "", failure(http.StatusUnauthorized, "", msgUnauthorized), false
	case token == "":
		return "", failure(http.StatusUnauthorized, "", msgTokenMissing), false
	case token != s.cfg.APIKey:
		return "", failure(http.StatusUnauthorized, "", msgInvalidToken), false
	}
	return token, outcome{}, true
}

// rateLimit counts the request in its key's fixed 60 s window.
func (s *Server) rateLimit(key string) (outcome, bool) {
	if s.cfg.RatePerMinute <= 0 {
		return outcome{}, false
	}
	now := s.now()
	s.mu.Lock()
	w := s.windows[key]
	if w == nil || now.Sub(w.start) >= windowLength {
		w = &rateWindow{start: now}
		s.windows[key] = w
	}
	w.count++
	count, reset := w.count, w.start.Add(windowLength)
	s.mu.Unlock()
	if count <= s.cfg.RatePerMinute {
		return outcome{}, false
	}
	wait := int(math.Ceil(reset.Sub(now).Seconds()))
	if wait < 1 {
		wait = 1
	}
	msg := fmt.Sprintf(msgRateLimit, count, wait, reset.UTC().Format(jsDateLayout))
	out := failure(http.StatusTooManyRequests, "", msg)
	if s.cfg.SendRetryAfter {
		out.header = http.Header{"Retry-After": {fmt.Sprint(wait)}}
	}
	return out, true
}

func (s *Server) blocklisted(sent string) bool {
	u, err := url.Parse(withScheme(sent))
	if err != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	for _, b := range s.cfg.Blocklist {
		b = strings.ToLower(b)
		if host == b || strings.HasSuffix(host, "."+b) {
			return true
		}
	}
	return false
}
