package digest

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/analysis/summary"
	"github.com/feedpoller/feedpoller/model"
)

// Gap is a source that failed or went silent in the window.
type Gap struct {
	SourceID int64
	URL      string
	Title    string
	Kind     string // GapFailed or GapSilent
	Detail   string
	// LastPolledAt is its last poll; LastArticleAt its last report.
	LastPolledAt  *time.Time
	LastArticleAt *time.Time
}

// Gap kinds.
const (
	GapFailed = "failed"
	GapSilent = "silent"
)

// findGaps lists the active sources whose last poll failed, and those
// that reported no article in the window. Reported is the clock stories
// use (publication time, or storage time for an undated article), so a
// source is never silent while its articles fill the digest; one that
// stored articles in the window but published them earlier says so.
func findGaps(sources []model.DigestSource) []Gap {
	var gaps []Gap
	for _, s := range sources {
		if !s.Active || strings.TrimSpace(s.URL) == "" {
			continue
		}
		g := Gap{SourceID: s.ID, URL: s.URL, Title: summary.OneLine(s.Title), LastPolledAt: s.LastPolledAt, LastArticleAt: s.LastArticleAt}
		switch {
		case s.LastStatus == "error" || s.LastStatus == "gone" || s.ConsecutiveFailures > 0:
			g.Kind = GapFailed
			g.Detail = failureDetail(s)
		case s.ArticlesInWindow == 0:
			g.Kind = GapSilent
			g.Detail = silenceDetail(s)
		default:
			continue
		}
		gaps = append(gaps, g)
	}
	slices.SortStableFunc(gaps, func(a, b Gap) int { return cmp.Compare(a.Kind, b.Kind) })
	return gaps
}

func silenceDetail(s model.DigestSource) string {
	var b strings.Builder
	b.WriteString("no articles reported in the window")
	if s.LastArticleAt != nil {
		b.WriteString(" (last reported " + s.LastArticleAt.UTC().Format(timeFormat))
	} else {
		b.WriteString(" (no article yet")
	}
	if s.StoredEarlier > 0 {
		fmt.Fprintf(&b, "; %s stored in the window %s published before it", plural(s.StoredEarlier, "article"), wasWere(s.StoredEarlier))
	}
	b.WriteString(")")
	return b.String()
}

func failureDetail(s model.DigestSource) string {
	var b strings.Builder
	b.WriteString("last poll")
	if s.LastPolledAt != nil {
		b.WriteString(" at " + s.LastPolledAt.UTC().Format(timeFormat))
	}
	status := s.LastStatus
	if status == "" {
		status = "error"
	}
	b.WriteString(" ended in " + status)
	if e := summary.OneLine(s.LastError); e != "" {
		if len(e) > 200 {
			e = e[:200] + "…"
		}
		b.WriteString(": " + e)
	}
	if s.ConsecutiveFailures > 0 {
		b.WriteString(" (" + plural(s.ConsecutiveFailures, "consecutive failure") + ")")
	}
	return b.String()
}

// WindowCounts say what the active sources reported and stored in a
// digest's window.
type WindowCounts struct {
	// Reported counts their articles reported in the window, promoted or
	// not.
	Reported int
	// StoredEarlier counts the articles they stored in the window but
	// published before it; PromotedEarlier those of them promoted, which
	// a window from EarliestPromoted on would show.
	StoredEarlier    int
	PromotedEarlier  int
	EarliestPromoted *time.Time
}

func countWindow(sources []model.DigestSource) WindowCounts {
	var c WindowCounts
	for _, s := range sources {
		if !s.Active {
			continue
		}
		c.Reported += s.ArticlesInWindow
		c.StoredEarlier += s.StoredEarlier
		c.PromotedEarlier += s.PromotedEarlier
		if t := s.EarliestPromoted; t != nil && (c.EarliestPromoted == nil || t.Before(*c.EarliestPromoted)) {
			c.EarliestPromoted = t
		}
	}
	return c
}

// SinceHint is the start of a window that shows what the sources stored
// in this one but published earlier ("2025-01-11"), or "" when nothing
// of that was promoted.
func (d *Digest) SinceHint() string {
	if d.Counts.PromotedEarlier == 0 || d.Counts.EarliestPromoted == nil {
		return ""
	}
	return d.Counts.EarliestPromoted.UTC().Format(time.DateOnly)
}

// EmptyReason says why a window has no stories, as truthfully as the
// counts allow: articles reported in it but none promoted, articles
// stored in it but published before it (and which window shows those),
// or nothing at all. Every format, and every front end, says it after
// "No stories in this window: ".
func (d *Digest) EmptyReason() string {
	c := d.Counts
	var parts []string
	if c.Reported > 0 {
		parts = append(parts, fmt.Sprintf("%s %s reported in it, but none was promoted to a content item",
			plural(c.Reported, "article"), wasWere(c.Reported)))
	}
	if c.StoredEarlier > 0 {
		var p string
		if c.Reported > 0 {
			p = fmt.Sprintf("%s more stored in it %s published before it", plural(c.StoredEarlier, "article"), wasWere(c.StoredEarlier))
		} else {
			p = fmt.Sprintf("the %s stored %s in it, but %s published before it, and stories count an article by when it was published",
				plural(d.SourcesAnalyzed, "source"), plural(c.StoredEarlier, "article"), allWere(c.StoredEarlier))
		}
		switch since := d.SinceHint(); {
		case since == "":
			p += " (none of them was promoted)"
		case c.PromotedEarlier == c.StoredEarlier:
			p += fmt.Sprintf("; a window from %s (--since %s) shows them", since, since)
		default:
			p += fmt.Sprintf("; a window from %s (--since %s) shows the %d of them that were promoted", since, since, c.PromotedEarlier)
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return fmt.Sprintf("none of the %s stored or reported an article in it", plural(d.SourcesAnalyzed, "source"))
	}
	return strings.Join(parts, "; ")
}

func allWere(n int) string {
	if n == 1 {
		return "it was"
	}
	return "all were"
}

func wasWere(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}
