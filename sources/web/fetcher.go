package web

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/sources/firecrawl"
)

// htmlAccept is the Accept header of page and validation requests.
const htmlAccept = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1"

// DefaultValidateTimeout bounds Validate.
const DefaultValidateTimeout = 10 * time.Second

// Fetcher fetches web sources: it is the poller's Fetcher for source type
// web. Set the fields before first use and do not copy it afterwards; it
// is safe for concurrent use.
type Fetcher struct {
	// Firecrawl, when set, is how pages are fetched; nil uses Client.
	Firecrawl *firecrawl.Client
	// Client is the native fetcher: page fetches without Firecrawl,
	// robots.txt, and every validation.
	Client *fetch.Client
	// RespectRobots makes polls obey robots.txt rules and Crawl-delay.
	RespectRobots bool
	// Log receives robots.txt notes; default slog.Default().
	Log *slog.Logger
	// ValidateTimeout bounds Validate; default DefaultValidateTimeout.
	ValidateTimeout time.Duration

	now       func() time.Time // test clock; nil is time.Now
	robotsMu  sync.Mutex
	robotsMap map[string]*robotsEntry
}

// Fetch polls one web source and synthesises its single feed item. Every
// failure is a *sources.FetchError.
func (p *Fetcher) Fetch(ctx context.Context, req sources.Request) (*sources.Result, error) {
	if p.Firecrawl == nil && p.Client == nil {
		return nil, &sources.FetchError{Kind: sources.KindPermanent, Msg: "web fetcher has neither Firecrawl nor a native fetcher"}
	}
	if p.RespectRobots {
		if err := p.checkRobots(ctx, req.URL); err != nil {
			return nil, err
		}
	}
	if p.Firecrawl != nil {
		return p.fetchFirecrawl(ctx, req)
	}
	return p.fetchNative(ctx, req)
}

// fetchFirecrawl scrapes the page through Firecrawl.
func (p *Fetcher) fetchFirecrawl(ctx context.Context, req sources.Request) (*sources.Result, error) {
	page, err := p.Firecrawl.Scrape(ctx, req.URL)
	if err != nil {
		return nil, asFetchError(err)
	}
	item := itemFromFirecrawl(req.URL, page)
	return &sources.Result{
		HTTPStatus: page.StatusCode,
		FeedTitle:  feedTitle(item),
		Items:      []sources.FeedItem{item},
		FinalURL:   page.FinalURL,
	}, nil
}

func (p *Fetcher) logger() *slog.Logger {
	if p.Log != nil {
		return p.Log
	}
	return slog.Default()
}

func (p *Fetcher) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

// asFetchError makes sure every failure the package returns is a
// *sources.FetchError, which the poller classifies.
func asFetchError(err error) error {
	var fe *sources.FetchError
	if errors.As(err, &fe) {
		return err
	}
	return &sources.FetchError{Kind: sources.KindTransient, Msg: "fetch failed", Err: err}
}

func feedTitle(item sources.FeedItem) string {
	if item.Title == untitled {
		return ""
	}
	return item.Title
}
