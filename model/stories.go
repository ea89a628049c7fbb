package model

import (
	"context"
	"time"
)

// StoryFacts is what the stories side worked out about a new article,
// stored with it so that later saves find it as a candidate: when it
// counts as reported, its signature in stored form (nil: none, the text
// is too short to compare), and the index keys it is filed under.
type StoryFacts struct {
	ReportedAt time.Time
	Signature  []byte
	Keys       []int64
}

// StoryQuery asks for the stored articles of a workspace that share one
// of Keys and were reported at or after Since: for each key the PerKey
// most recently reported.
type StoryQuery struct {
	WorkspaceID int64
	Keys        []int64
	Since       time.Time
	PerKey      int
}

// StoryCandidate is a stored article a lookup found, with its story and
// its stored signature.
type StoryCandidate struct {
	ArticleID  int64
	StoryID    int64
	ReportedAt time.Time
	Signature  []byte
}

// StoryLookup is what one candidate lookup found, and the workspace's
// story generation it was read at: the count of saves that placed
// articles in the workspace's stories.
type StoryLookup struct {
	Candidates []StoryCandidate
	Generation int64
}

// StoryView reads a workspace's stories: through the store before a
// save, and inside the save's transaction while it places the save's
// articles.
type StoryView interface {
	StoryCandidates(ctx context.Context, q StoryQuery) (*StoryLookup, error)
}

// StoryRequest is what a save asks its StoryPlacer: the stories of its new
// articles (Facts nil for an article without any), with the workspace's
// story generation the save holds. Saves of one workspace place their
// articles one at a time, each counting the generation up.
type StoryRequest struct {
	WorkspaceID int64
	SourceID    int64
	Generation  int64
	Facts       []*StoryFacts
}

// StoryChoice is one article's story. Exactly one holds: StoryID > 0 (it
// joins that stored story), JoinsArticle ≥ 0 (it joins the story of that
// earlier article of the same save), or neither (it starts a story).
// Reason says why, in words stored with the article ("" when it starts a
// story).
type StoryChoice struct {
	StoryID      int64
	JoinsArticle int
	Reason       string
}

// NewStory is the choice of an article that starts a story of its own.
func NewStory() StoryChoice { return StoryChoice{JoinsArticle: -1} }

// StoryMerge folds story From into story Into: From's articles and content
// items move to Into, and From is marked as merged into it.
type StoryMerge struct {
	From, Into int64
}

// StoryPlacement is a StoryPlacer's answer: one choice per article of the
// request, in order, and the merges of stored stories the articles
// bridge.
type StoryPlacement struct {
	Articles []StoryChoice
	Merges   []StoryMerge
}

// StoryPlacer decides the stories of a save's new articles. The save calls
// it inside its one transaction, with a view that reads inside that
// transaction, and writes what it answers.
type StoryPlacer interface {
	PlaceStories(ctx context.Context, view StoryView, req StoryRequest) (StoryPlacement, error)
}

// ReportedAt is when an article counts as reported: its publication time
// when known and not later than when it was stored, else when it was
// stored.
func ReportedAt(published *time.Time, stored time.Time) time.Time {
	if published != nil && !published.IsZero() && !published.After(stored) {
		return *published
	}
	return stored
}
