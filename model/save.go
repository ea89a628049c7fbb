package model

// PushSave is what a push writes: articles, the scheduler's state learnt
// from them ("" leaves it), and the push's poll_runs row.
type PushSave struct {
	WorkspaceID   int64
	SourceID      int64
	Articles      []NewArticle
	ScheduleState string
	Run           PollRun
	// Stories places the articles in stories, as for a poll.
	Stories StoryPlacer
}

// NewArticle is an article a poll wants stored, and whether it passed
// relevance.
type NewArticle struct {
	Article FeedArticle
	Promote bool
	// Story is what the stories side worked out about the article, stored
	// with it; nil: none (it is then a story of its own).
	Story *StoryFacts
}

// PollSave is everything one poll writes, in one transaction.
type PollSave struct {
	WorkspaceID int64
	SourceID    int64
	// Owner is the lease holder; the source row is only updated while the
	// lease is still ours, so a poll that outlived its lease cannot clobber
	// the bookkeeping of the replica that took over.
	Owner    string
	Articles []NewArticle
	Source   SourceUpdate
	Run      PollRun
	// Stories places the articles in stories inside the save's
	// transaction (nil: each article is a story of its own).
	Stories StoryPlacer
}

// SaveCounts says what the database actually kept.
type SaveCounts struct {
	New       int // articles inserted
	Duplicate int // articles not inserted: another poll stored their URL first
	Promoted  int // content items created
	// ContentDuplicates counts relevant articles, inserted (so counted in
	// New, not in Duplicate: each article is one or the other), that were
	// not promoted because their content hash was already promoted in the
	// workspace.
	ContentDuplicates int
	// Deliveries counts the webhook deliveries queued for the promotions.
	Deliveries int
	// Stories counts what the story placement did; FreqReads where its
	// reads of document frequencies were answered from.
	Stories   StoryCounts
	FreqReads FreqReads
}

// Add adds o's counts to c.
func (c *SaveCounts) Add(o SaveCounts) {
	c.New += o.New
	c.Duplicate += o.Duplicate
	c.Promoted += o.Promoted
	c.ContentDuplicates += o.ContentDuplicates
	c.Deliveries += o.Deliveries
	c.Stories.Add(o.Stories)
	c.FreqReads.Add(o.FreqReads)
}
