package rss

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mmcdole/gofeed/atom"
	ext "github.com/mmcdole/gofeed/extensions"
	gjson "github.com/mmcdole/gofeed/json"
	grss "github.com/mmcdole/gofeed/rss"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/urls"
)

// rssHints are the scheduling hints an RSS channel declares: <ttl>,
// <skipHours>, <skipDays>, the syndication module, and atom:link hub and
// self links. Hub and self URLs are made absolute later (resolveHints).
func rssHints(rf *grss.Feed) sources.Hints {
	h := sources.Hints{FeedRead: true, Syndication: syndication(rf.Extensions)}
	if ttl, ok := ttlMinutes(rf.TTL); ok {
		h.TTL = &ttl
	}
	for _, v := range rf.SkipHours {
		// RSS 2.0 counts 0–23; older documents used 1–24, 24 being midnight.
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 && n <= 24 {
			h.SkipHours = appendUnique(h.SkipHours, n%24)
		}
	}
	for _, v := range rf.SkipDays {
		if d, ok := weekday(v); ok {
			h.SkipDays = appendUnique(h.SkipDays, d)
		}
	}
	h.Hubs, h.Self = atomLinks(rf.Extensions)
	return h
}

// atomHints are an Atom feed's hub and self links and, rarely, a
// syndication module declaration.
func atomHints(af *atom.Feed) sources.Hints {
	h := sources.Hints{FeedRead: true, Syndication: syndication(af.Extensions)}
	for _, l := range af.Links {
		if l != nil {
			h.Hubs, h.Self = addLink(h.Hubs, h.Self, l.Rel, l.Href)
		}
	}
	return h
}

// jsonHints are a JSON Feed's feed_url and hubs. gofeed does not read
// hubs, so they are read from the body here.
func jsonHints(jf *gjson.Feed, body []byte) sources.Hints {
	h := sources.Hints{FeedRead: true, Self: strings.TrimSpace(jf.FeedURL)}
	var doc struct {
		Hubs []struct {
			Type string `json:"type"`
			URL  string `json:"url"`
		} `json:"hubs"`
	}
	if json.Unmarshal(body, &doc) == nil {
		for _, hub := range doc.Hubs {
			if strings.EqualFold(strings.TrimSpace(hub.Type), "websub") || hub.Type == "" {
				h.Hubs = appendUnique(h.Hubs, strings.TrimSpace(hub.URL))
			}
		}
	}
	return h
}

// resolveHints makes hub and self URLs absolute against base and drops
// those that are not http(s).
func resolveHints(h sources.Hints, base *url.URL) sources.Hints {
	hubs := h.Hubs
	h.Hubs = nil
	for _, hub := range hubs {
		if u := urls.Absolute(base, hub); u != "" {
			h.Hubs = appendUnique(h.Hubs, u)
		}
	}
	h.Self = urls.Absolute(base, h.Self)
	return h
}

// ttlMinutes reads <ttl> (minutes). A value too large for a duration is
// kept as the largest one: the policy clamps it and says so.
func ttlMinutes(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case err != nil && strings.TrimLeft(v, "0123456789") == "":
		return time.Duration(1<<63 - 1), true
	case err != nil || n < 0:
		return 0, false
	case n > int64((1<<63-1)/time.Minute):
		return time.Duration(1<<63 - 1), true
	}
	return time.Duration(n) * time.Minute, true
}

func weekday(v string) (time.Weekday, bool) {
	v = strings.ToLower(strings.TrimSpace(v))
	for d := time.Sunday; d <= time.Saturday; d++ {
		if v == strings.ToLower(d.String()) {
			return d, true
		}
	}
	return 0, false
}

// syndication reads the sy: module: updatePeriod (default daily),
// updateFrequency (default 1) and updateBase. Nil when none is declared.
func syndication(exts ext.Extensions) *sources.Syndication {
	sy := exts["sy"]
	period, freq, base := firstValue(sy, "updatePeriod"), firstValue(sy, "updateFrequency"), firstValue(sy, "updateBase")
	if period == "" && freq == "" && base == "" {
		return nil
	}
	out := &sources.Syndication{Period: strings.ToLower(period), Frequency: 1}
	if out.Period == "" {
		out.Period = "daily"
	}
	if freq != "" {
		n, err := strconv.ParseInt(freq, 10, 64)
		switch {
		case err == nil:
			out.Frequency = n
		case strings.TrimLeft(freq, "0123456789") == "":
			out.Frequency = 1<<63 - 1 // digits only: too large
		default:
			out.Frequency = 0
		}
	}
	if base != "" {
		for _, layout := range []string{time.RFC3339, "2006-01-02T15:04Z07:00", "2006-01-02T15:04", "2006-01-02"} {
			if t, err := time.Parse(layout, base); err == nil {
				out.Base = t.UTC()
				break
			}
		}
	}
	return out
}

func firstValue(elems map[string][]ext.Extension, name string) string {
	for _, e := range elems[name] {
		if v := strings.TrimSpace(e.Value); v != "" {
			return v
		}
	}
	return ""
}

// atomLinks are the hub and self targets of an RSS channel's atom:link
// elements.
func atomLinks(exts ext.Extensions) (hubs []string, self string) {
	for _, prefix := range []string{"atom", "atom10", "atom03"} {
		for _, l := range exts[prefix]["link"] {
			hubs, self = addLink(hubs, self, l.Attrs["rel"], l.Attrs["href"])
		}
	}
	return hubs, self
}

func addLink(hubs []string, self, rel, href string) ([]string, string) {
	href = strings.TrimSpace(href)
	if href == "" {
		return hubs, self
	}
	for _, r := range strings.Fields(strings.ToLower(rel)) {
		switch {
		case r == "hub":
			hubs = appendUnique(hubs, href)
		case r == "self" && self == "":
			self = href
		}
	}
	return hubs, self
}

func appendUnique[T comparable](list []T, v T) []T {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}
