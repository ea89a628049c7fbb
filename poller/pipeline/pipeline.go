// Package pipeline turns the feed items of one source into the articles
// to store: the per-item half of a poll, after the fetch and before the
// save. Run is the one loop; each stage is a small function over the
// batch's items, in a file of its own, called in this order:
//
//	normalize.go  each item's link resolved (Google News) and normalised
//	              into its dedup key, or its id when it has no link;
//	              repeats within the batch dropped
//	dedup.go      one batched lookup of the URLs and GUIDs already stored,
//	              and what is known dropped
//	extract.go    the content cascade: the item's own HTML, its article
//	              page, a rendered page, its summary
//	values.go     the article to store, every value checked (date window,
//	              Markdown cap, summary as Markdown)
//	dedup.go      a tracked page kept only when its content changed; one
//	              article per canonical URL
//	score.go      relevance against the workspace's profile, and which
//	              articles become content items
//	summarize.go  each article's extractive summary, story profile and
//	              reported time
//	cluster.go    the batch's story placer (stories.Placer), which the
//	              save runs inside its transaction
//
// Run stores nothing: the caller saves what it returns in one transaction
// (store.Store.SavePoll), so a poll costs one dedup query and one save
// whatever the number of its items. Run depends on small interfaces
// (ArticleLookup, Profiles, PageFetcher) that the store, the workspace
// profiles and the page fetchers satisfy, so every stage is tested without
// a database or a network. docs/architecture.md tells the whole path of a
// poll, from claiming the source to the content item.
package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/analysis/relevance"
	"github.com/feedpoller/feedpoller/analysis/stories"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/sources"
)

// Defaults of Options' zero fields.
const (
	DefaultMinWords          = 50
	DefaultMaxArticleFetches = 10
	DefaultMaxMarkdownBytes  = 1 << 20
)

// profileStems is how many words' stems the story profiles remember: the
// common words of every language the articles are in, a few megabytes.
const profileStems = 50000

// Options configures a Pipeline. A zero field takes its default; the
// poller fills Lookup, Profiles, Stories and Log from its own.
type Options struct {
	// Lookup finds what a workspace already stores of a batch's items;
	// required.
	Lookup ArticleLookup
	// Profiles gives each workspace's relevance scorer; required.
	Profiles Profiles
	// Pages fetches article pages (cascade tier 2); nil skips that tier.
	Pages PageFetcher
	// Render fetches a page through a JavaScript-capable renderer
	// (Firecrawl); nil skips that tier.
	Render PageFetcher
	// MinWords is what a cascade tier must reach to be accepted (default
	// 50; negative: any content at all).
	MinWords int
	// MaxArticleFetches bounds the page fetches of one batch (default 10;
	// negative: none).
	MaxArticleFetches int
	// MaxMarkdownBytes caps the Markdown stored per article and per
	// summary (default 1 MiB).
	MaxMarkdownBytes int
	// Log receives per-item notes at debug level; nil is slog.Default().
	Log *slog.Logger
	// PlaceStories has the save place the articles in stories (false:
	// every article a story of its own). StoryOptions tune the grouping
	// (zero fields: the stories package's defaults).
	PlaceStories bool
	StoryOptions stories.GroupOptions
	// StoryDocFreqWindow is how far back the document frequencies reach
	// (default stories.DefaultDocFreqWindow).
	StoryDocFreqWindow time.Duration
}

// DefaultOptions are the pipeline's defaults, without its collaborators.
func DefaultOptions() Options {
	return Options{}.withDefaults()
}

// withDefaults fills the zero fields; a negative one keeps meaning none.
func (o Options) withDefaults() Options {
	o.StoryOptions = o.StoryOptions.WithDefaults()
	if o.StoryDocFreqWindow == 0 {
		o.StoryDocFreqWindow = stories.DefaultDocFreqWindow
	}
	if o.MinWords == 0 {
		o.MinWords = DefaultMinWords
	}
	if o.MaxArticleFetches == 0 {
		o.MaxArticleFetches = DefaultMaxArticleFetches
	}
	if o.MaxMarkdownBytes == 0 {
		o.MaxMarkdownBytes = DefaultMaxMarkdownBytes
	}
	return o
}

// Pipeline runs batches of feed items through the stages. It is safe for
// concurrent use: the poller's workers share one.
type Pipeline struct {
	opts Options
	log  *slog.Logger
	// stems are the story profiles' stems, shared by every batch.
	stems *stories.Stems
}

// New fills in the defaults of opts and refuses what it cannot work with,
// naming the field.
func New(opts Options) (*Pipeline, error) {
	opts = opts.withDefaults()
	var errs []string
	if opts.Lookup == nil {
		errs = append(errs, "an article lookup is required")
	}
	if opts.Profiles == nil {
		errs = append(errs, "relevance profiles are required")
	}
	if opts.MaxMarkdownBytes < 0 {
		errs = append(errs, fmt.Sprintf("MaxMarkdownBytes %d is negative", opts.MaxMarkdownBytes))
	}
	if err := opts.StoryOptions.Check(); err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("pipeline: %s", strings.Join(errs, "; "))
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	return &Pipeline{opts: opts, log: opts.Log, stems: stories.NewStems(profileStems)}, nil
}

// Batch is the feed items of one source that enter the pipeline together:
// what one poll of the source yielded.
type Batch struct {
	Source model.FeedSource
	Items  []sources.FeedItem
	// FetchBy is when fetching article pages must stop, so that the batch
	// can still be saved in time (a poll's lease). Zero: only ctx bounds
	// the fetches.
	FetchBy time.Time
}

// Result is what a batch comes to.
type Result struct {
	// Articles to store, each with whether it is promoted, in feed order.
	Articles []model.NewArticle
	// Duplicates counts the items already stored, or repeated within the
	// batch. (Items that lose a race to another poll's save are counted
	// by the save.)
	Duplicates int
	// Stories places the articles in stories inside the save (nil: no
	// story index, or nothing to store).
	Stories model.StoryPlacer
	// Settled are the feed Digests (sources.FeedItem) of the items found
	// stored and of the Articles: once the save commits, the outcome of
	// each is final (see sources.Result's Settle).
	Settled []uint64
}

// item is one feed item on its way through the stages; each stage fills
// its part.
type item struct {
	feed sources.FeedItem
	url  string // normalised: the dedup key
	link string // as resolved, to fetch the page; "" when there is none
	// prev is the stored latest revision of a tracked page, nil otherwise.
	prev *model.KnownArticle
	ex   extraction
	art  model.FeedArticle
	rel  relevance.Result
	// promote: the article becomes a content item.
	promote bool
	// profile is what grouping compares of it, story what the save
	// stores of its story.
	profile stories.Profile
	story   *model.StoryFacts
}

// Run takes a batch through every stage and returns the articles to store.
// An error is the database's (the lookup or the profile could not be
// read): nothing of the batch is decided then, and the caller tells a
// refused value (model.ErrRefusedData) from an outage.
func (p *Pipeline) Run(ctx context.Context, b Batch) (Result, error) {
	src := b.Source
	items, dups := p.normalize(src, b.Items)
	if len(items) == 0 {
		return Result{Duplicates: dups}, nil
	}
	known, err := p.lookup(ctx, src, items)
	if err != nil {
		return Result{}, err
	}
	items, n, settled := dropKnown(src, items, known)
	dups += n

	fetchCtx := ctx
	if !b.FetchBy.IsZero() {
		var cancel context.CancelFunc
		fetchCtx, cancel = context.WithDeadline(ctx, b.FetchBy)
		defer cancel()
	}
	p.extract(fetchCtx, src, items)
	p.values(src, items)
	items, n = dropUnchanged(items)
	dups += n
	items, n, err = p.dedupCanonical(ctx, src, items)
	if err != nil {
		return Result{}, err
	}
	dups += n
	if len(items) == 0 {
		return Result{Duplicates: dups, Settled: settled}, nil
	}

	scorer, err := p.opts.Profiles.Scorer(ctx, src.WorkspaceID)
	if err != nil {
		return Result{}, fmt.Errorf("relevance profile of workspace %d: %w", src.WorkspaceID, err)
	}
	score(scorer, items)
	promote(scorer, items)
	summarize(items, p.stems, time.Now())
	plan, err := p.cluster(src, items)
	if err != nil {
		return Result{}, err
	}
	for _, it := range items {
		settled = appendDigest(settled, it)
	}
	return Result{Articles: toStore(items), Duplicates: dups, Stories: plan, Settled: settled}, nil
}

// toStore is the batch's articles as the store saves them.
func toStore(items []item) []model.NewArticle {
	out := make([]model.NewArticle, len(items))
	for i, it := range items {
		out[i] = model.NewArticle{Article: it.art, Promote: it.promote, Story: it.story}
	}
	return out
}
