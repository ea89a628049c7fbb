package digest

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/analysis/rank"
)

// lagText is a report's lag: "first", "+35m", "+2h10m", "+3d4h".
func lagText(first bool, lag time.Duration) string {
	if first {
		return "first"
	}
	m := int64(lag / time.Minute)
	switch {
	case m < 60:
		return "+" + strconv.FormatInt(m, 10) + "m"
	case m < 24*60:
		if m%60 == 0 {
			return fmt.Sprintf("+%dh", m/60)
		}
		return fmt.Sprintf("+%dh%02dm", m/60, m%60)
	default:
		if h := m / 60 % 24; h != 0 {
			return fmt.Sprintf("+%dd%dh", m/(24*60), h)
		}
		return fmt.Sprintf("+%dd", m/(24*60))
	}
}

// plural is "1 story", "2 stories", "3 sources".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "y") {
		return strconv.Itoa(n) + " " + word[:len(word)-1] + "ies"
	}
	return strconv.Itoa(n) + " " + word + "s"
}

func confText(c float64) string {
	return strconv.FormatFloat(c, 'f', 2, 64) + " (" + rank.ConfidenceLabel(c) + ")"
}

func windowText(w Window) string {
	return w.Since.UTC().Format(timeFormat) + " to " + w.Until.UTC().Format(timeFormat)
}
