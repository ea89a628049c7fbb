package digest

import (
	"slices"
	"time"

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
	// Counts say what the sources reported and stored in the window, so
	// that a window without stories can say why.
	Counts WindowCounts
}

// StoryReport is one story of a digest.
type StoryReport struct {
	ID int64
	// Title and Summary are those of its representative article,
	// Sources[Quoted].
	Title   string
	Summary string
	Quoted  int
	// Importance orders the digest (see Build); Rank is the best rank
	// among its articles; Confidence its confidence (rank.Confidence)
	// over its independent sources.
	Importance  float64
	Rank        float64
	Confidence  float64
	SourceCount int
	// FirstAt and LastAt are its first and last reports in the window.
	FirstAt, LastAt time.Time
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
	// Quoted marks the article whose title and summary tell the story.
	Quoted bool
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

// Options tune Build.
type Options struct {
	// MaxStories caps the stories of the digest, most important first (0:
	// all).
	MaxStories int
}

// Build orders the stories of in by importance, computes their
// confidence, provenance and citations, and finds the gaps. Articles
// without a URL are dropped, and so is a story left without articles:
// nothing is rendered that cannot be cited.
//
// A story's importance is coverage × relevance × freshness × recency:
// the summed reliability scores of its independent sources (each
// registrable domain once, with its best tier), the best relevance among
// its articles, the freshness of its last report (its slowest decay
// class, seen from the end of the window), and 1 − RecencyWeight × how
// far back in the window that report is. It depends on the story as a
// whole, not on which of its articles ranks best. Ties go to more
// independent sources, then the story reported last.
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
		if r, ok := buildStory(s, in.Workspace.DecayClass, in.Window, now); ok {
			d.Stories = append(d.Stories, r)
		}
	}
	slices.SortFunc(d.Stories, storyOrder)
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
		weights += s.Importance
		sum += s.Importance * s.Confidence
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
	d.Gaps = findGaps(in.Sources)
	d.Counts = countWindow(in.Sources)
	return d
}

const timeFormat = "2006-01-02 15:04 UTC"
