package webhooks

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// maxSnippet is how much of a receiver's answer goes into the delivery log.
const maxSnippet = 512

// Class is what an attempt's result means for the delivery.
type Class string

const (
	// ClassDelivered: a 2xx answer.
	ClassDelivered Class = "delivered"
	// ClassRetry: a network failure, a timeout, 408, 425, 429 or 5xx:
	// worth another attempt after a backoff (or the Retry-After).
	ClassRetry Class = "retry"
	// ClassRejected: any other 4xx, or a redirect (not followed): the
	// receiver refuses it; retried a few times in case it is being fixed,
	// then given up.
	ClassRejected Class = "rejected"
	// ClassGone: 410, the receiver says the hook is gone for good: the
	// delivery fails and the webhook is disabled.
	ClassGone Class = "gone"
	// ClassRefused: the target is not allowed (address policy, malformed
	// URL); no connection was made. Fails at once.
	ClassRefused Class = "refused"
)

// Attempt is the record of one POST of a delivery.
type Attempt struct {
	// Number counts the attempts of the delivery, this one included.
	Number int
	At     time.Time
	// Duration is the attempt's time, connect to the end of the answer.
	Duration   time.Duration
	Class      Class
	StatusCode int
	// RetryAfter is the receiver's Retry-After from At, 0 when it sent
	// none.
	RetryAfter time.Duration
	// Error says what went wrong, for the delivery log ("" when
	// delivered): the status and the start of the answer, or the network
	// failure.
	Error string
}

// classify maps a receiver's answer to a Class.
func classify(resp *http.Response, snippet []byte, now time.Time) Attempt {
	a := Attempt{StatusCode: resp.StatusCode}
	code := resp.StatusCode
	switch {
	case code >= 200 && code < 300:
		a.Class = ClassDelivered
		return a
	case code == http.StatusGone:
		a.Class = ClassGone
	case code == http.StatusRequestTimeout, code == http.StatusTooEarly, code == http.StatusTooManyRequests, code >= 500:
		a.Class = ClassRetry
		a.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), now)
	default:
		a.Class = ClassRejected
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
