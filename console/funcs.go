package console

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// funcs are the helpers the templates use; none returns markup, so
// html/template escapes everything they give it.
var funcs = template.FuncMap{
	"when":     when,
	"ago":      ago,
	"wsPath":   func(id int64) string { return Prefix + "/w/" + strconv.FormatInt(id, 10) },
	"outcome":  outcomeWords,
	"score":    func(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) },
	"join":     strings.Join,
	"plural":   plural,
	"nonEmpty": func(s string) bool { return strings.TrimSpace(s) != "" },
	"deref":    func(p *int64) int64 { return derefInt(p) },
	"inc":      func(i int) int { return i + 1 },
	"title":    sourceTitle,
}

func derefInt(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// when is a time as the console shows it: UTC, to the minute; "never"
// for none.
func when(v any) string {
	switch t := v.(type) {
	case time.Time:
		if t.IsZero() {
			return "never"
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	case *time.Time:
		if t == nil || t.IsZero() {
			return "never"
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	}
	return ""
}

// ago is how long ago (or how soon) t is, in words.
func ago(v any) string {
	var t time.Time
	switch x := v.(type) {
	case time.Time:
		t = x
	case *time.Time:
		if x == nil {
			return "never"
		}
		t = *x
	}
	if t.IsZero() {
		return "never"
	}
	d := time.Until(t)
	future := d > 0
	if !future {
		d = -d
	}
	var s string
	switch {
	case d < time.Minute:
		return map[bool]string{true: "in under a minute", false: "just now"}[future]
	case d < time.Hour:
		s = plural(int(d/time.Minute), "minute")
	case d < 48*time.Hour:
		s = plural(int(d/time.Hour), "hour")
	default:
		s = plural(int(d/(24*time.Hour)), "day")
	}
	if future {
		return "in " + s
	}
	return s + " ago"
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// outcomeWords says what a poll outcome means.
func outcomeWords(o string) string {
	switch o {
	case model.StatusOK:
		return "new content fetched"
	case model.StatusNotModified:
		return "not modified"
	case model.StatusError:
		return "failed"
	case model.StatusDeferred:
		return "deferred (rate limit or open circuit)"
	case model.StatusGone:
		return "gone (HTTP 410): deactivated"
	case model.StatusNotSupported:
		return "not polled (type not supported)"
	case "pushed":
		return "pushed by the WebSub hub"
	case "":
		return "not polled yet"
	}
	return strings.ReplaceAll(o, "_", " ")
}

func sourceTitle(src model.FeedSource) string {
	if strings.TrimSpace(src.Title) != "" {
		return src.Title
	}
	return src.URL
}
