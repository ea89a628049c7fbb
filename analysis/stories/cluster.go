package stories

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// DefaultThreshold is the shipped similarity threshold: an article joins
// a story when its Similarity.Score with one of the story's articles
// reaches it. Chosen on the labelled story set (see docs/digest.md).
const DefaultThreshold = 0.45

// DefaultWindow is how long a story takes new articles: an article is
// compared only with articles reported at most this long before it. News
// is re-reported within days; the window also bounds what the index must
// hold, whatever the size of the archive.
const DefaultWindow = 7 * 24 * time.Hour

// Options tune story detection. A zero field takes its default.
type Options struct {
	// Threshold is the Similarity.Score an article needs to join a story,
	// more than 0 and at most 1 (default DefaultThreshold).
	Threshold float64
	// Window is how far back a story takes new articles (default
	// DefaultWindow).
	Window time.Duration
}

// ErrOptions reports options out of range.
var ErrOptions = errors.New("invalid story options")

// DefaultOptions are the shipped threshold and window.
func DefaultOptions() Options { return Options{}.WithDefaults() }

// WithDefaults is o with its zero fields filled in.
func (o Options) WithDefaults() Options {
	if o.Threshold == 0 {
		o.Threshold = DefaultThreshold
	}
	if o.Window == 0 {
		o.Window = DefaultWindow
	}
	return o
}

// Check refuses options out of range, naming the field; zero fields are
// the defaults, which are in range.
func (o Options) Check() error {
	_, err := o.checked()
	return err
}

// checked is o with its defaults filled in, or why it cannot be used.
func (o Options) checked() (Options, error) {
	o = o.WithDefaults()
	if !(o.Threshold > 0 && o.Threshold <= 1) { // NaN too
		return o, fmt.Errorf("%w: Threshold %v is outside (0, 1]", ErrOptions, o.Threshold)
	}
	if o.Window < 0 {
		return o, fmt.Errorf("%w: Window %v is negative", ErrOptions, o.Window)
	}
	return o, nil
}

// Item is an article to place in a story.
type Item struct {
	Signature Signature
	// At is when the article was reported: its publication time when
	// known and not later than when it was stored, else when it was
	// stored (see ReportedAt).
	At time.Time
}

// Assignment says which story an item belongs to. Exactly one holds:
// StoryID > 0 (it joins that stored story), JoinsItem ≥ 0 (it joins the
// story of that earlier item of the same batch), or neither (it starts a
// story of its own).
type Assignment struct {
	StoryID   int64
	JoinsItem int
	// MatchedArticleID is the stored article it matched best (0 when it
	// matched a batch item or nothing); Similarity that match's evidence.
	MatchedArticleID int64
	Similarity       Similarity
}

// NewStory reports whether the item starts a story.
func (a Assignment) NewStory() bool { return a.StoryID == 0 && a.JoinsItem < 0 }

// Clusterer places new articles in stories, looking candidates up in an
// Index.
type Clusterer struct {
	index Index
	opts  Options
}

// NewClusterer returns a Clusterer over index.
func NewClusterer(index Index, opts Options) (*Clusterer, error) {
	o, err := opts.checked()
	if err != nil {
		return nil, err
	}
	return &Clusterer{index: index, opts: o}, nil
}

// Assign places a batch of new articles of one workspace (a poll's new
// articles, in the order they were reported) with one index lookup for
// the whole batch. It stores nothing: the caller records the
// assignments and adds the items to the index.
func (c *Clusterer) Assign(ctx context.Context, workspaceID int64, items []Item) ([]Assignment, error) {
	if len(items) == 0 {
		return nil, nil
	}
	var keys []int64
	since := items[0].At
	for _, it := range items {
		keys = append(keys, it.Signature.Keys()...)
		if it.At.Before(since) {
			since = it.At
		}
	}
	cands, err := c.index.Candidates(ctx, workspaceID, keys, since.Add(-c.opts.Window))
	if err != nil {
		return nil, fmt.Errorf("look up story candidates of workspace %d: %w", workspaceID, err)
	}
	return Decide(items, cands, c.opts)
}

// Decide is Assign without the lookup, for a caller that fetched the
// candidates itself (for example inside its own transaction): each item
// joins the story of the candidate or earlier item that shares a band
// key with it, lies within the window, and is most similar, if that
// similarity reaches the threshold. Stories never merge: an item that
// matches two stories joins the closer one.
func Decide(items []Item, candidates []Candidate, opts Options) ([]Assignment, error) {
	o, err := opts.checked()
	if err != nil {
		return nil, err
	}
	// Band keys of candidates and items, each sorted, in one buffer.
	buf := make([]int64, 0, (len(candidates)+len(items))*MaxKeys)
	span := func(sig *Signature) []int64 {
		from := len(buf)
		if !sig.Empty() {
			buf = sig.appendKeys(buf)
		}
		k := buf[from:len(buf):len(buf)]
		slices.Sort(k)
		return k
	}
	candKeys := make([][]int64, len(candidates))
	for i := range candidates {
		candKeys[i] = span(candidates[i].Signature)
	}
	itemKeys := make([][]int64, len(items))
	for i := range items {
		itemKeys[i] = span(&items[i].Signature)
	}
	out := make([]Assignment, len(items))
	for i := range items {
		it := &items[i]
		best := Assignment{JoinsItem: -1}
		bestScore, bestBody := -1.0, -1.0
		consider := func(sim Similarity, story int64, article int64, item int) {
			// Highest score wins; on a tie the closer whole text, then the
			// first found (candidates come in index order).
			s := sim.Score()
			if s < o.Threshold || s < bestScore || s == bestScore && sim.Body <= bestBody {
				return
			}
			bestScore, bestBody = s, sim.Body
			best = Assignment{StoryID: story, JoinsItem: item, MatchedArticleID: article, Similarity: sim}
		}
		for ci := range candidates {
			c := &candidates[ci]
			if !withinWindow(c.At, it.At, o.Window) || !shareKey(itemKeys[i], candKeys[ci]) {
				continue
			}
			consider(Compare(&it.Signature, c.Signature), c.StoryID, c.ArticleID, -1)
		}
		for j := range i {
			if !withinWindow(items[j].At, it.At, o.Window) || !shareKey(itemKeys[i], itemKeys[j]) {
				continue
			}
			// Joining an earlier item means joining whatever it joined.
			story, item := out[j].StoryID, j
			if story != 0 {
				item = -1
			} else if out[j].JoinsItem >= 0 {
				item = out[j].JoinsItem
			}
			consider(Compare(&it.Signature, &items[j].Signature), story, 0, item)
		}
		out[i] = best
	}
	return out, nil
}

// shareKey reports whether two sorted key lists have a key in common.
func shareKey(a, b []int64) bool {
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0] < b[0]:
			a = a[1:]
		case a[0] > b[0]:
			b = b[1:]
		default:
			return true
		}
	}
	return false
}

// withinWindow reports whether a and b lie at most window apart.
func withinWindow(a, b time.Time, window time.Duration) bool {
	d := a.Sub(b)
	if d < 0 {
		d = -d
	}
	return d <= window
}

// ReportedAt is the time an article counts as reported: its publication
// time when it has one that is not later than when it was stored (feeds
// sometimes date items in the future), else when it was stored.
func ReportedAt(published *time.Time, stored time.Time) time.Time {
	return model.ReportedAt(published, stored)
}
