package webhooks

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/model"
)

// maxSnippet is how much of a receiver's answer goes into the delivery log.
const maxSnippet = 512

// classify maps a receiver's answer to a Class.
func classify(resp *http.Response, snippet []byte, now time.Time) model.DeliveryAttempt {
	a := model.DeliveryAttempt{StatusCode: resp.StatusCode}
	code := resp.StatusCode
	switch {
	case code >= 200 && code < 300:
		a.Class = model.AttemptDelivered
		return a
	case code == http.StatusGone:
		a.Class = model.AttemptGone
	case code == http.StatusRequestTimeout, code == http.StatusTooEarly, code == http.StatusTooManyRequests, code >= 500:
		a.Class = model.AttemptRetry
		a.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), now)
	default:
		a.Class = model.AttemptRejected
	}
	a.Error = fmt.Sprintf("receiver answered %s", resp.Status)
	if code >= 300 && code < 400 {
		a.Error += fmt.Sprintf(" to %s (redirects are not followed: update the webhook URL)", redact(resp.Header.Get("Location")))
	}
	if s := cleanSnippet(snippet); s != "" {
		a.Error += ": " + s
	}
	return a
}

// retryAfter reads a Retry-After header, seconds or an HTTP date, as the
// wait from now (0 when absent, unreadable or past).
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(min(secs, int64(365*24*time.Hour/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// cleanSnippet makes the start of an answer safe to show: valid UTF-8,
// one line, bounded.
func cleanSnippet(b []byte) string {
	s := strings.ToValidUTF8(string(b), "�")
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
