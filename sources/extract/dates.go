package extract

import (
	"regexp"
	"strings"
	"time"
)

// dateLayouts are the shapes dates take in real metadata, most specific
// first. Layouts without a zone are read as UTC.
var dateLayouts = []string{
	time.RFC3339Nano,
	time.RFC3339,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05 -0700",
	"2006-01-02 15:04:05 -07:00",
	"2006-01-02 15:04:05 MST",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
	time.RFC1123Z,
	time.RFC1123,
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04:05 MST",
	"Mon, 2 Jan 2006 15:04 -0700",
	"Mon, 2 Jan 2006 15:04 MST",
	"Mon, 2 Jan 2006",
	"2 Jan 2006 15:04:05 -0700",
	"2 Jan 2006 15:04:05 MST",
	"2 Jan 2006 15:04",
	time.RFC850,
	time.ANSIC,
	time.UnixDate,
	"Mon Jan 2 15:04:05 -0700 2006",
	"20060102T150405Z0700",
	"20060102T150405Z",
	"2006-01-02",
	"2006/01/02 15:04:05",
	"2006/01/02 15:04",
	"2006/01/02",
	"2006.01.02",
	"20060102",
	"January 2, 2006 15:04:05 MST",
	"January 2, 2006 15:04 MST",
	"January 2, 2006 3:04 PM MST",
	"January 2, 2006 3:04 PM",
	"January 2, 2006 3:04pm",
	"January 2, 2006 15:04",
	"January 2, 2006",
	"January 2 2006",
	"Jan 2, 2006 3:04 PM MST",
	"Jan 2, 2006 3:04 PM",
	"Jan 2, 2006 15:04",
	"Jan 2, 2006",
	"Jan 2 2006",
	"Monday, January 2, 2006 3:04 PM",
	"Monday, January 2, 2006",
	"Mon, January 2, 2006",
	"Mon, Jan 2, 2006",
	"2 January 2006 15:04",
	"2 January 2006",
	"2 Jan 2006",
	"Monday 2 January 2006",
	"Monday, 2 January 2006",
	"January 2006",
	"02.01.2006 15:04",
	"02.01.2006",
	"2006-01",
}

var (
	// ordinalRe drops "st", "nd", "rd", "th" after a day number.
	ordinalRe = regexp.MustCompile(`(?i)\b(\d{1,2})(st|nd|rd|th)\b`)
	// atRe drops the connecting word in "June 5, 2024 at 10:00".
	atRe = regexp.MustCompile(`(?i)\s+(at|um|à|-|–|\|)\s+`)
	// labelRe drops labels in front of the date ("Published: …").
	labelRe = regexp.MustCompile(`(?i)^(published|posted|updated|last updated|modified|date|on)\s*(on)?\s*:?\s*`)
	// isoPrefixRe finds an ISO date at the start of a longer string.
	isoPrefixRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?`)
	// pmRe normalises "10:00 a.m." / "10:00pm" to "10:00 AM".
	pmRe = regexp.MustCompile(`(?i)(\d)\s*([ap])\.?m\.?\b`)
)

// zoneOffsets maps zone abbreviations Go's parser only knows by name to
// their offsets, so "EST" is not silently read as UTC.
var zoneOffsets = map[string]int{
	"UTC": 0, "GMT": 0, "Z": 0,
	"EST": -5 * 3600, "EDT": -4 * 3600, "CST": -6 * 3600, "CDT": -5 * 3600,
	"MST": -7 * 3600, "MDT": -6 * 3600, "PST": -8 * 3600, "PDT": -7 * 3600,
	"BST": 1 * 3600, "CET": 1 * 3600, "CEST": 2 * 3600, "EET": 2 * 3600, "EEST": 3 * 3600,
	"IST": 5*3600 + 1800, "JST": 9 * 3600, "KST": 9 * 3600, "AEST": 10 * 3600, "AEDT": 11 * 3600,
}

// ParseDate reads a date in any of the formats found in real pages and
// feeds (RFC 3339, RFC 1123, ISO dates, "January 2, 2006", Unix epochs…)
// and returns it in UTC. ok is false when nothing sensible was found.
func ParseDate(s string) (t time.Time, ok bool) {
	s = collapseSpace(s)
	if s == "" || len(s) > 100 {
		return time.Time{}, false
	}
	if t, ok := parseDateExact(s); ok {
		return t, true
	}
	clean := labelRe.ReplaceAllString(s, "")
	clean = ordinalRe.ReplaceAllString(clean, "$1")
	clean = atRe.ReplaceAllString(clean, " ")
	clean = pmRe.ReplaceAllStringFunc(clean, func(m string) string {
		sub := pmRe.FindStringSubmatch(m)
		return sub[1] + " " + strings.ToUpper(sub[2]) + "M"
	})
	clean = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(clean), "."))
	if t, ok := parseDateExact(clean); ok {
		return t, true
	}
	if m := isoPrefixRe.FindString(clean); m != "" {
		if t, ok := parseDateExact(m); ok {
			return t, true
		}
	}
	// Unix epoch seconds or milliseconds, as some CMSs emit.
	if allDigits(clean) && (len(clean) == 10 || len(clean) == 13) {
		var n int64
		for _, r := range clean {
			n = n*10 + int64(r-'0')
		}
		if len(clean) == 13 {
			n /= 1000
		}
		t := time.Unix(n, 0).UTC()
		if plausibleYear(t) {
			return t, true
		}
	}
	return time.Time{}, false
}

func parseDateExact(s string) (time.Time, bool) {
	for _, layout := range dateLayouts {
		t, err := time.Parse(layout, s)
		if err != nil {
			continue
		}
		t = fixZone(t)
		if !plausibleYear(t) {
			return time.Time{}, false
		}
		return t.UTC(), true
	}
	return time.Time{}, false
}

// fixZone applies a known offset when Go parsed a zone abbreviation it
// could not place (it then reports offset 0 under that name).
func fixZone(t time.Time) time.Time {
	name, off := t.Zone()
	if off != 0 || name == "UTC" || name == "" {
		return t
	}
	if o, ok := zoneOffsets[strings.ToUpper(name)]; ok && o != 0 {
		return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.FixedZone(name, o))
	}
	return t
}

func plausibleYear(t time.Time) bool {
	return t.Year() >= 1990 && t.Year() <= 2100
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
