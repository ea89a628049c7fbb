package digest

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/analysis/rank"
	"github.com/feedpoller/feedpoller/analysis/stories"
	"github.com/feedpoller/feedpoller/model"
)

// Digest is a built digest, ready to render.
type Digest struct {
	Workspace       Workspace
	Window          Window
	GeneratedAt     time.Time
	SourcesAnalyzed int
	// ArticleCount counts the articles of the rendered stories.
	ArticleCount int
	// Confidence is the rank-weighted mean confidence of the stories.
	Confidence float64
	// Stories are in order of importance.
	Stories []StoryReport
	Gaps    []Gap
	// Citations are the numbered sources the stories cite, in order.
	Citations []Citation
}

// StoryReport is one story of a digest.
type StoryReport struct {
	ID      int64
	Title   string
	Summary string
	// Rank is the best rank among its articles; Confidence its
	// confidence (rank.Confidence) over its independent sources.
	Rank        float64
	Confidence  float64
	SourceCount int
	FirstAt     time.Time
	// Sources are its articles in the order they were reported.
	Sources []SourceReport
}

// SourceReport is one article of a story, with its provenance.
type SourceReport struct {
	Citation int
	// ArticleID is the stored article, for front ends that link to it.
	ArticleID   int64
	URL         string
	Title       string
	SourceTitle string
	Domain      string
	Tier        model.Tier
	PublishedAt *time.Time
	ReportedAt  time.Time
	Lag         time.Duration
	First       bool
}

// Citation is one entry of the numbered sources list.
type Citation struct {
	N int
	// ArticleID is the stored article cited.
	ArticleID int64
	URL       string
	Title     string
	Tier      model.Tier
}

// Gap is a source that failed or went silent in the window.
type Gap struct {
	SourceID      int64
	URL           string
	Title         string
	Kind          string // GapFailed or GapSilent
	Detail        string
	LastPolledAt  *time.Time
	LastArticleAt *time.Time
}

// Gap kinds.
const (
	GapFailed = "failed"
	GapSilent = "silent"
)

// Options tune Build.
type Options struct {
	// MaxStories caps the stories of the digest, most important first (0:
	// all).
	MaxStories int
}

// Build ranks the stories of in, computes their confidence, provenance
// and citations, and finds the gaps. Articles without a URL are dropped,
// and so is a story left without articles: nothing is rendered that
// cannot be cited.
func Build(in Input, opts Options) *Digest {
	d := &Digest{
		Workspace:       in.Workspace,
		Window:          in.Window,
		GeneratedAt:     in.GeneratedAt,
		SourcesAnalyzed: in.SourcesAnalyzed,
	}
	// Freshness is seen from the end of the window, so a digest of a past
	// window ranks as it would have then.
	now := in.Window.Until
	if now.IsZero() {
		now = in.GeneratedAt
	}
	for _, s := range in.Stories {
		if r, ok := buildStory(s, in.Workspace.DecayClass, now); ok {
			d.Stories = append(d.Stories, r)
		}
	}
	slices.SortFunc(d.Stories, func(a, b StoryReport) int {
		if c := cmp.Compare(b.Rank*b.Confidence, a.Rank*a.Confidence); c != 0 {
			return c
		}
		if c := cmp.Compare(b.SourceCount, a.SourceCount); c != 0 {
			return c
		}
		if c := b.FirstAt.Compare(a.FirstAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	if opts.MaxStories > 0 && len(d.Stories) > opts.MaxStories {
		d.Stories = d.Stories[:opts.MaxStories]
	}
	weights, sum := 0.0, 0.0
	for i := range d.Stories {
		s := &d.Stories[i]
		for j := range s.Sources {
			src := &s.Sources[j]
			src.Citation = len(d.Citations) + 1
			d.Citations = append(d.Citations, Citation{N: src.Citation, ArticleID: src.ArticleID, URL: src.URL, Title: src.Title, Tier: src.Tier})
		}
		d.ArticleCount += len(s.Sources)
		weights += s.Rank
		sum += s.Rank * s.Confidence
	}
	switch {
	case weights > 0:
		d.Confidence = sum / weights
	case len(d.Stories) > 0:
		for _, s := range d.Stories {
			d.Confidence += s.Confidence
		}
		d.Confidence /= float64(len(d.Stories))
	}
	d.Gaps = findGaps(in.Sources, in.Window)
	return d
}

func buildStory(s Story, wsClass model.DecayClass, now time.Time) (StoryReport, bool) {
	arts := make([]model.DigestArticle, 0, len(s.Articles))
	for _, a := range s.Articles {
		if strings.TrimSpace(a.URL) != "" {
			arts = append(arts, a)
		}
	}
	if len(arts) == 0 {
		return StoryReport{}, false
	}
	r := StoryReport{ID: s.ID}
	members := make([]stories.Member, len(arts))
	byID := make(map[int64]*model.DigestArticle, len(arts))
	evidence := make([]rank.Evidence, len(arts))
	bestRank, best := -1.0, 0
	for i := range arts {
		a := &arts[i]
		at := stories.ReportedAt(a.PublishedAt, a.StoredAt)
		members[i] = stories.Member{ArticleID: a.ID, SourceID: a.SourceID, At: at}
		byID[a.ID] = a
		evidence[i] = rank.Evidence{URL: a.URL, Tier: a.Tier}
		score := rank.Score(a.Relevance, a.Tier, rank.Freshness(model.EffectiveClass(wsClass, a.DecayClass), at, now))
		if score > bestRank {
			bestRank, best = score, i
		}
	}
	r.Rank = bestRank
	r.Confidence = rank.Confidence(evidence)
	r.Title = oneLine(arts[best].Title)
	r.Summary = oneLine(arts[best].Summary)
	for _, rep := range stories.Provenance(members) {
		a := byID[rep.ArticleID]
		if r.Title == "" {
			r.Title = oneLine(a.Title)
		}
		if r.Summary == "" {
			r.Summary = oneLine(a.Summary)
		}
		r.Sources = append(r.Sources, SourceReport{
			ArticleID: a.ID, URL: strings.TrimSpace(a.URL), Title: oneLine(a.Title), SourceTitle: oneLine(a.SourceTitle),
			Domain: rank.Domain(a.URL), Tier: a.Tier, PublishedAt: a.PublishedAt,
			ReportedAt: rep.At, Lag: rep.Lag, First: rep.First,
		})
	}
	if r.Title == "" {
		r.Title = r.Sources[0].Domain
	}
	r.FirstAt = r.Sources[0].ReportedAt
	urls := make([]string, len(arts))
	for i, a := range arts {
		urls[i] = a.URL
	}
	r.SourceCount = rank.IndependentSources(urls)
	return r, true
}

// findGaps lists the active sources whose last poll failed, and those
// that stored no article in the window.
func findGaps(sources []model.DigestSource, w Window) []Gap {
	var gaps []Gap
	for _, s := range sources {
		if !s.Active || strings.TrimSpace(s.URL) == "" {
			continue
		}
		g := Gap{SourceID: s.ID, URL: s.URL, Title: oneLine(s.Title), LastPolledAt: s.LastPolledAt, LastArticleAt: s.LastArticleAt}
		switch {
		case s.LastStatus == "error" || s.LastStatus == "gone" || s.ConsecutiveFailures > 0:
			g.Kind = GapFailed
			g.Detail = failureDetail(s)
		case s.ArticlesInWindow == 0:
			g.Kind = GapSilent
			g.Detail = "no new articles in the window"
			if s.LastArticleAt != nil {
				g.Detail += " (last article " + s.LastArticleAt.UTC().Format(timeFormat) + ")"
			} else {
				g.Detail += " (no article yet)"
			}
		default:
			continue
		}
		gaps = append(gaps, g)
	}
	slices.SortStableFunc(gaps, func(a, b Gap) int { return cmp.Compare(a.Kind, b.Kind) })
	return gaps
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
	if e := oneLine(s.LastError); e != "" {
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

const timeFormat = "2006-01-02 15:04 UTC"

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
