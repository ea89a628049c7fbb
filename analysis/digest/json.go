package digest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/feedpoller/feedpoller/analysis/rank"
	"github.com/feedpoller/feedpoller/model"
)

// The JSON document. Field names are the API's contract.
type jsonDigest struct {
	Metadata  jsonMetadata   `json:"metadata"`
	Stories   []jsonStory    `json:"stories"`
	Gaps      []jsonGap      `json:"gaps"`
	Citations []jsonCitation `json:"sources"`
	Note      string         `json:"note,omitempty"`
}

type jsonMetadata struct {
	Workspace struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	} `json:"workspace"`
	Window struct {
		Since time.Time `json:"since"`
		Until time.Time `json:"until"`
	} `json:"window"`
	GeneratedAt      time.Time `json:"generated_at"`
	SourcesAnalyzed  int       `json:"sources_analyzed"`
	ArticlesAnalyzed int       `json:"articles_analyzed"`
	StoryCount       int       `json:"story_count"`
	Confidence       float64   `json:"overall_confidence"`
	ConfidenceLabel  string    `json:"overall_confidence_label"`
	// StoredEarlier is there when the sources stored articles in the
	// window that were published before it.
	StoredEarlier *jsonEarlier `json:"stored_before_window,omitempty"`
}

type jsonEarlier struct {
	Articles int `json:"articles"`
	Promoted int `json:"promoted"`
	// Since starts a window that shows the promoted ones.
	Since string `json:"since,omitempty"`
}

type jsonStory struct {
	ID              int64        `json:"id"`
	Title           string       `json:"title"`
	Summary         string       `json:"summary"`
	Confidence      float64      `json:"confidence"`
	ConfidenceLabel string       `json:"confidence_label"`
	Importance      float64      `json:"importance"`
	Rank            float64      `json:"rank"`
	SourceCount     int          `json:"source_count"`
	FirstReportedAt time.Time    `json:"first_reported_at"`
	Citations       []int        `json:"citations"`
	Sources         []jsonSource `json:"sources"`
}

type jsonSource struct {
	Citation        int        `json:"citation"`
	URL             string     `json:"url"`
	Title           string     `json:"title"`
	SourceTitle     string     `json:"source_title"`
	Domain          string     `json:"domain"`
	ReliabilityTier model.Tier `json:"reliability_tier"`
	PublishedAt     *time.Time `json:"published_at"`
	ReportedAt      time.Time  `json:"reported_at"`
	First           bool       `json:"first"`
	Quoted          bool       `json:"quoted"`
	LagSeconds      int64      `json:"lag_seconds"`
	Lag             string     `json:"lag"`
}

type jsonGap struct {
	SourceID      int64      `json:"source_id"`
	URL           string     `json:"url"`
	Title         string     `json:"title"`
	Kind          string     `json:"kind"`
	Detail        string     `json:"detail"`
	LastPolledAt  *time.Time `json:"last_polled_at"`
	LastArticleAt *time.Time `json:"last_article_at"`
}

type jsonCitation struct {
	N               int        `json:"citation"`
	URL             string     `json:"url"`
	Title           string     `json:"title"`
	ReliabilityTier model.Tier `json:"reliability_tier"`
}

// JSON renders the digest's content as a JSON document (see
// docs/digest.md for its fields), indented, ending in a newline.
func JSON(d *Digest) ([]byte, error) {
	var doc jsonDigest
	m := &doc.Metadata
	m.Workspace.ID, m.Workspace.Name = d.Workspace.ID, d.Workspace.Name
	m.Window.Since, m.Window.Until = d.Window.Since.UTC(), d.Window.Until.UTC()
	m.GeneratedAt = d.GeneratedAt.UTC()
	m.SourcesAnalyzed, m.ArticlesAnalyzed, m.StoryCount = d.SourcesAnalyzed, d.ArticleCount, len(d.Stories)
	m.Confidence, m.ConfidenceLabel = round3(d.Confidence), rank.ConfidenceLabel(d.Confidence)
	doc.Stories = make([]jsonStory, 0, len(d.Stories))
	for _, s := range d.Stories {
		js := jsonStory{
			ID: s.ID, Title: s.Title, Summary: s.Summary, Confidence: round3(s.Confidence),
			ConfidenceLabel: rank.ConfidenceLabel(s.Confidence), Importance: round3(s.Importance), Rank: round3(s.Rank),
			SourceCount: s.SourceCount, FirstReportedAt: s.FirstAt.UTC(),
		}
		for _, src := range s.Sources {
			js.Citations = append(js.Citations, src.Citation)
			var pub *time.Time
			if src.PublishedAt != nil {
				p := src.PublishedAt.UTC()
				pub = &p
			}
			js.Sources = append(js.Sources, jsonSource{
				Citation: src.Citation, URL: src.URL, Title: src.Title, SourceTitle: src.SourceTitle,
				Domain: src.Domain, ReliabilityTier: src.Tier, PublishedAt: pub, ReportedAt: src.ReportedAt.UTC(),
				First: src.First, Quoted: src.Quoted, LagSeconds: int64(src.Lag / time.Second), Lag: lagText(src.First, src.Lag),
			})
		}
		doc.Stories = append(doc.Stories, js)
	}
	doc.Gaps = make([]jsonGap, 0, len(d.Gaps))
	for _, g := range d.Gaps {
		doc.Gaps = append(doc.Gaps, jsonGap(g))
	}
	doc.Citations = make([]jsonCitation, 0, len(d.Citations))
	for _, c := range d.Citations {
		doc.Citations = append(doc.Citations, jsonCitation{N: c.N, URL: c.URL, Title: c.Title, ReliabilityTier: c.Tier})
	}
	if c := d.Counts; c.StoredEarlier > 0 {
		m.StoredEarlier = &jsonEarlier{Articles: c.StoredEarlier, Promoted: c.PromotedEarlier, Since: d.SinceHint()}
	}
	if len(d.Stories) == 0 {
		doc.Note = "no stories in this window: " + d.EmptyReason()
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode digest of workspace %d: %w", d.Workspace.ID, err)
	}
	return buf.Bytes(), nil
}

func round3(x float64) float64 {
	return float64(int64(x*1000+0.5)) / 1000
}
