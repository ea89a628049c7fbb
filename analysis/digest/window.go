package digest

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Window is the half-open interval [Since, Until) a digest covers.
type Window struct {
	Since, Until time.Time
}

// DefaultSince is the window a digest covers when no start is given.
const DefaultSince = 24 * time.Hour

// ErrWindow reports a window that cannot be used.
var ErrWindow = errors.New("invalid digest window")

// FieldError is a request value a digest cannot use. Field names it as
// the API's query and the CLI's flags do (since, until, format); Problem
// says what is wrong with it without naming it again, so that a message
// listing several fields names each once. errors.Is(err, ErrWindow) or
// errors.Is(err, ErrFormat) holds.
type FieldError struct {
	Field, Problem string
	msg            string
	kind           error
}

func (e *FieldError) Error() string { return e.msg }

// Unwrap is ErrWindow or ErrFormat.
func (e *FieldError) Unwrap() error { return e.kind }

func windowError(field, problem string) *FieldError {
	return &FieldError{Field: field, Problem: problem, msg: ErrWindow.Error() + ": " + field + " " + problem, kind: ErrWindow}
}

// ParseWindow reads the --since/--until (since=/until=) values: since is
// a duration back from until ("24h", "90m", "7d", "2w") or a time; until
// is a time, empty for now. Times are RFC 3339 ("2025-03-04T06:00:00Z")
// or dates ("2025-03-04", midnight UTC). An error is a *FieldError.
func ParseWindow(since, until string, now time.Time) (Window, error) {
	w := Window{Until: now.UTC()}
	if until != "" {
		t, err := parseTime(until)
		if err != nil {
			return Window{}, windowError("until", fmt.Sprintf("%q is not a time: %v", until, err))
		}
		w.Until = t
	}
	switch {
	case since == "":
		w.Since = w.Until.Add(-DefaultSince)
	default:
		if d, ok := parseDuration(since); ok {
			if d <= 0 {
				return Window{}, windowError("since", fmt.Sprintf("%q must be a positive duration", since))
			}
			w.Since = w.Until.Add(-d)
			break
		}
		t, err := parseTime(since)
		if err != nil {
			return Window{}, windowError("since", fmt.Sprintf("%q is neither a duration (24h, 7d) nor a time (RFC 3339 or YYYY-MM-DD)", since))
		}
		w.Since = t
	}
	if !w.Since.Before(w.Until) {
		return Window{}, windowError("since", fmt.Sprintf("%s is not before until %s", w.Since.Format(time.RFC3339), w.Until.Format(time.RFC3339)))
	}
	return w, nil
}

func parseDuration(s string) (time.Duration, bool) {
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			v, err := strconv.ParseFloat(n, 64)
			if err != nil {
				return 0, false
			}
			return time.Duration(v * float64(unit)), true
		}
	}
	d, err := time.ParseDuration(s)
	return d, err == nil
}

func parseTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, errors.New("want RFC 3339 (2025-03-04T06:00:00Z) or a date (2025-03-04)")
	}
	return t, nil
}

// Format is a digest format.
type Format string

// The formats.
const (
	FormatMarkdown Format = "markdown"
	FormatJSON     Format = "json"
	FormatCompact  Format = "compact"
)

// Formats lists the accepted formats.
var Formats = []Format{FormatMarkdown, FormatJSON, FormatCompact}

// ErrFormat reports an unknown format.
var ErrFormat = errors.New("unknown digest format")

// ParseFormat reads a format name; "" is markdown. An error is a
// *FieldError.
func ParseFormat(s string) (Format, error) {
	if s == "" {
		return FormatMarkdown, nil
	}
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", &FieldError{Field: "format", Problem: fmt.Sprintf("%q is unknown: accepted formats are markdown, json and compact", s),
		msg: fmt.Sprintf("%s %q: accepted formats are markdown, json and compact", ErrFormat, s), kind: ErrFormat}
}
