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
//	score.go      relevance against the workspace's profile
//	promote.go    which articles become content items
//	summarize.go  each article's extractive summary, story signature and
//	              reported time
//	cluster.go    each article's story: one candidate lookup for the
//	              batch, then the decision (stories.Decide)
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

// Options configures a Pipeline. Its defaults live with the poller's
// (poller.DefaultOptions); New checks what it is given and fills nothing
// but the logger.
type Options struct {
	// Lookup finds what a workspace already stores of a batch's items.
	Lookup ArticleLookup
	// Profiles gives each workspace's relevance scorer.
	Profiles Profiles
	// Pages fetches article pages (cascade tier 2); nil skips that tier.
	Pages PageFetcher
	// Render fetches a page through a JavaScript-capable renderer
	// (Firecrawl); nil skips that tier.
	Render PageFetcher
	// MinWords is what a cascade tier must reach to be accepted (0: any
	// content at all).
	MinWords int
	// MaxArticleFetches bounds the page fetches of one batch (0: none).
	MaxArticleFetches int
	// MaxMarkdownBytes caps the Markdown stored per article and per
	// summary.
	MaxMarkdownBytes int
	// Log receives per-item notes at debug level; nil is slog.Default().
	Log *slog.Logger
	// Stories finds story candidates (model.StoryView: the store); nil
	// leaves every article a story of its own. StoryOptions are the
	// threshold and window of the decision (zero values: the stories
	// package's defaults).
	Stories      model.StoryView
	StoryOptions stories.Options
}

// Pipeline runs batches of feed items through the stages. It is safe for
// concurrent use: the poller's workers share one.
type Pipeline struct {
	opts Options
	log  *slog.Logger
}

// New checks opts.
func New(opts Options) (*Pipeline, error) {
	var errs []string
	if opts.Lookup == nil {
		errs = append(errs, "an article lookup is required")
	}
	if opts.Profiles == nil {
		errs = append(errs, "relevance profiles are required")
	}
	if opts.MinWords < 0 {
		errs = append(errs, fmt.Sprintf("MinWords %d is negative", opts.MinWords))
	}
	if opts.MaxArticleFetches < 0 {
		errs = append(errs, fmt.Sprintf("MaxArticleFetches %d is negative", opts.MaxArticleFetches))
	}
	if opts.MaxMarkdownBytes <= 0 {
		errs = append(errs, "MaxMarkdownBytes must be more than 0")
	}
	if _, err := stories.NewClusterer(nil, opts.StoryOptions); err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("pipeline: %s", strings.Join(errs, "; "))
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	return &Pipeline{opts: opts, log: opts.Log}, nil
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
	// sig is its story signature, story what the save stores of it.
	sig   stories.Signature
	story *model.StoryFacts
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
	items, n := dropKnown(src, items, known)
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
		return Result{Duplicates: dups}, nil
	}

	scorer, err := p.opts.Profiles.Scorer(ctx, src.WorkspaceID)
	if err != nil {
		return Result{}, fmt.Errorf("relevance profile of workspace %d: %w", src.WorkspaceID, err)
	}
	score(scorer, items)
	promote(scorer, items)
	if err := summarize(items, time.Now()); err != nil {
		return Result{}, err
	}
	plan, err := p.cluster(ctx, src, items)
	if err != nil {
		return Result{}, err
	}
	return Result{Articles: toStore(items), Duplicates: dups, Stories: plan}, nil
}
