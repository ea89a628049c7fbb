package schedule

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// fmtDur writes a duration as reasons show it: "2h10m", "45m", "24h",
// "30s"; rounded to the second, and to the minute from a minute up (a
// Retry-After of 60 read a moment before the decision is "1m", not "59s").
func fmtDur(d time.Duration) string {
	d = d.Round(time.Second)
	if d < time.Minute {
		return strconv.Itoa(int(max(d, 0)/time.Second)) + "s"
	}
	d = d.Round(time.Minute)
	h, m := int64(d/time.Hour), int64(d%time.Hour/time.Minute)
	switch {
	case h == 0:
		return fmt.Sprintf("%dm", m)
	case m == 0:
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dh%dm", h, m)
}

// century is where a declared duration stops being written as declared:
// one that large may have been cut to the longest duration Go holds.
const century = 100 * 365 * 24 * time.Hour

// fmtMinutes writes a declared minute count as declared: "ttl 120m"; one
// beyond a century as "over 100 years".
func fmtMinutes(d time.Duration) string {
	if d > century {
		return "over 100 years"
	}
	return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
}

// fmtRate writes a rate (items an hour) per day, or per week when below
// one a day: "~3 new/day", "~0.5 new/day" is "~3.5 new/week".
func fmtRate(perHour float64) string {
	perDay := perHour * 24
	switch {
	case perDay >= 1:
		return "~" + twoDigits(perDay) + " new/day"
	case perDay*7 >= 1:
		return "~" + twoDigits(perDay*7) + " new/week"
	}
	return "<1 new/week"
}

// twoDigits keeps two significant digits, more before the point: 3.14 →
// "3.1", 12.6 → "13", 0.25 → "0.25".
func twoDigits(v float64) string {
	if v >= 10 {
		return strconv.FormatFloat(math.Round(v), 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}

// fmtClock writes a UTC time of day, with the weekday when it is not on
// now's day: "07:00", "Mon 00:00".
func fmtClock(t, now time.Time) string {
	t, now = t.UTC(), now.UTC()
	if t.YearDay() == now.YearDay() && t.Year() == now.Year() {
		return t.Format("15:04")
	}
	return t.Format("Mon 15:04")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
