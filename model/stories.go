package model

import (
	"context"
	"time"
)

// StoryFacts is what the stories side worked out about a new article and
// the save stores with it: when it counts as reported.
type StoryFacts struct {
	ReportedAt time.Time
}

// StoryTermQuery asks a workspace's term index for the entries of Terms
// reported at or after Since: for each term the PerTerm most recently
// reported (ties: the higher article id first). A placement's lookup
// marks the terms as read by its save (on PostgreSQL, shared locks that
// let a save find the saves it met, see the store's rejoin); Stored marks
// a read of stored articles' terms (re-examination, a rejoin), which
// does not: its writes are guarded by the revisions of the stories it
// changes.
type StoryTermQuery struct {
	WorkspaceID int64
	Terms       []uint32
	Since       time.Time
	PerTerm     int
	Stored      bool
}

// StoryPosting is one entry of the term index: the article has Term among
// its index terms, and is in story StoryID (a story merged away already
// followed to the one it was merged into).
type StoryPosting struct {
	Term       uint32
	ArticleID  int64
	StoryID    int64
	ReportedAt time.Time
}

// StoryState is a stored story as grouping keeps it: how many articles it
// has, its revision (counted up by every write of its row), the story it
// was merged into (0: none) and its centroid in stored form (nil: a story
// from before grouping by terms).
type StoryState struct {
	ID         int64
	Articles   int
	Revision   int64
	MergedInto int64
	Centroid   []byte
}

// StoryDocFreq is a workspace's document frequencies over its recent
// archive: how many articles were counted, and how many of them have each
// term asked for (terms none has are left out).
type StoryDocFreq struct {
	Docs  int
	Terms map[uint32]int
}

// StoryMemberQuery asks for the members of stories as re-examination
// reads them: for each of Stories, the PerStory articles reported latest
// between Since and Until (ties: the higher article id first).
type StoryMemberQuery struct {
	WorkspaceID int64
	Stories     []int64
	Since       time.Time
	Until       time.Time
	PerStory    int
}

// StoryMember is a stored article of a story: when it counts as
// reported, its profile in stored form (nil: stored before profiles were
// kept) and its index terms (those the term index still holds).
type StoryMember struct {
	ArticleID  int64
	StoryID    int64
	ReportedAt time.Time
	Profile    []byte
	Terms      []uint32
}

// StoryView reads a workspace's stories inside a save's transaction. Each
// call is one statement.
type StoryView interface {
	// StoryDocFreq reads the document frequencies of terms over the
	// articles reported at or after since.
	StoryDocFreq(ctx context.Context, workspaceID int64, terms []uint32, since time.Time) (*StoryDocFreq, error)
	// StoryPostings looks the term index up.
	StoryPostings(ctx context.Context, q StoryTermQuery) ([]StoryPosting, error)
	// StoryStates reads the stories ids name (unknown ids are left out).
	StoryStates(ctx context.Context, workspaceID int64, ids []int64) ([]StoryState, error)
	// StoryMembers reads the latest members of stories.
	StoryMembers(ctx context.Context, q StoryMemberQuery) ([]StoryMember, error)
}

// StoryRequest is what a save asks its StoryPlacer: the stories of its new
// articles (Facts nil for an article without any).
type StoryRequest struct {
	WorkspaceID int64
	SourceID    int64
	Facts       []*StoryFacts
}

// StoryChoice is one article's story. Exactly one holds: StoryID > 0 (it
// joins that stored story), JoinsArticle ≥ 0 (it joins the story that
// other article of the same save starts), or neither (it starts a story).
// Reason says why, in words stored with the article ("" when it starts a
// story). Terms are the article's index terms: the save files it under
// them in the term index. Profile is what grouping compares of the
// article, in stored form, written with it (nil: none).
type StoryChoice struct {
	StoryID      int64
	JoinsArticle int
	Reason       string
	Terms        []uint32
	Profile      []byte
}

// NewStory is the choice of an article that starts a story of its own.
func NewStory() StoryChoice { return StoryChoice{JoinsArticle: -1} }

// StoryMerge folds story From into story Into: From's articles and content
// items move to Into, and From is marked as merged into it. Reason is set
// for a late join (From a story of one article that a later poll's
// placement found to belong to Into): why that article is in Into now, in
// words, written as the story_reason of From's articles. A merge through
// a new article has none; the articles it moves keep theirs.
type StoryMerge struct {
	From, Into int64
	Reason     string
}

// StoryMove moves a stored article, reported at ReportedAt, from stored
// story From to stored story Into, with the reason it is in Into now:
// the article, its content items and its term index entries carry Into's
// id afterwards. (A move of a story's last article is a StoryMerge with
// a reason instead, so that the story's id keeps resolving.)
type StoryMove struct {
	ArticleID  int64
	From, Into int64
	ReportedAt time.Time
	Reason     string
}

// StoryUpdate is a stored story's centroid after a placement, in stored
// form, and the revision of the story the placement read (the save writes
// it only when the story is still at that revision).
type StoryUpdate struct {
	ID       int64
	Revision int64
	Centroid []byte
}

// StoryPlacement is a StoryPlacer's answer: one choice per article of the
// request, in order; the centroid of each story an article starts
// (Started, by that article's position); the stored stories it changes
// (Updates, merged-away ones and those moves leave or join included), the
// merges and the moves of stored articles (made after the merges); and
// the document counts of the articles' features, which the save adds to
// the workspace's document frequencies.
type StoryPlacement struct {
	Articles []StoryChoice
	Started  map[int][]byte
	Updates  []StoryUpdate
	Merges   []StoryMerge
	Moves    []StoryMove
	Counts   []StoryDocCount
}

// StoryDocCount is how many of a save's articles reported in period
// Period (StoryPeriod) have Term; Term 0 counts the articles themselves.
type StoryDocCount struct {
	Period int64
	Term   uint32
	Docs   int
}

// StoryPeriodLength is the length of the periods document frequencies are
// kept by: a read sums a window's periods, so a week keeps that to a few
// rows per term while a window still ends within a week of where it is
// asked to.
const StoryPeriodLength = 7 * 24 * time.Hour

// StoryPeriod is the period t falls in: whole StoryPeriodLengths since the
// Unix epoch.
func StoryPeriod(t time.Time) int64 {
	n := int64(StoryPeriodLength / time.Second)
	u := t.Unix()
	if u < 0 {
		u -= n - 1
	}
	return u / n
}

// StoryPlacer decides the stories of a save's new articles. The save calls
// PlaceStories inside its one transaction, with a view that reads inside
// that transaction, and writes what it answers. When a story the answer
// updates changed between the read and the save's lock of it (another
// save wrote it), the save asks again: PlaceStories must read afresh on
// each call.
type StoryPlacer interface {
	PlaceStories(ctx context.Context, view StoryView, req StoryRequest) (StoryPlacement, error)
}

// StoryRejoin is what a save asks its placer once it has committed, when
// other saves were reading some of its index terms at its commit
// (PostgreSQL, where saves of a workspace read the term index at once):
// such a save and this one may each have decided without the other's
// articles. Terms are those index terms; Stories the save's stories that
// have an article filed under one of them. Once the other saves have
// committed, the placer reads the term index under Terms again and
// answers the merges that the two decisions would have made had they
// been taken one after the other.
type StoryRejoin struct {
	WorkspaceID int64
	Terms       []uint32
	Stories     []RejoinStory
}

// RejoinStory is one of a save's stories in a StoryRejoin: Started when
// the save started it, At the latest report of the save's articles in it.
type RejoinStory struct {
	ID      int64
	Started bool
	At      time.Time
}

// StoryRejoiner is a StoryPlacer that can answer a StoryRejoin: its
// answer holds merges and the stories they update only (Articles and
// Counts empty). Like PlaceStories it must read afresh on each call.
type StoryRejoiner interface {
	RejoinStories(ctx context.Context, view StoryView, req StoryRejoin) (StoryPlacement, error)
}

// StoryCounts are what a save's placement did: articles that joined a
// stored or new story, stories started, stories merged into another,
// stored articles moved to another story; and, once the save committed,
// stories merged by its rejoin (StoryRejoin).
type StoryCounts struct {
	Joined, Started, Merged, Moved, Rejoined int
}

// Add adds o's counts to c's.
func (c *StoryCounts) Add(o StoryCounts) {
	c.Joined += o.Joined
	c.Started += o.Started
	c.Merged += o.Merged
	c.Moved += o.Moved
	c.Rejoined += o.Rejoined
}

// FreqReads counts a save's placement reads of document frequencies on
// PostgreSQL by where they were answered from, the process's checked
// copy of a big workspace's or the table, and the copies it read from
// the table.
type FreqReads struct {
	FromCopy, FromTable, CopyLoads int
}

// Add adds o's counts to r's.
func (r *FreqReads) Add(o FreqReads) {
	r.FromCopy += o.FromCopy
	r.FromTable += o.FromTable
	r.CopyLoads += o.CopyLoads
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
