package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/extract"
	"github.com/feedpoller/feedpoller/sources/fetch"
)

// Validation is what checking a would-be web source found.
type Validation struct {
	// Title is the page's title ("" when it names none).
	Title string
	// FeedLinks are the absolute URLs of the RSS/Atom feeds the page
	// advertises (<link rel="alternate">), so an admin can pick the feed.
	FeedLinks []string
}

// Validate checks that pageURL can be a web source: a GET (User-Agent set,
// redirects followed, bounded by ValidateTimeout) must answer 2xx with an
// HTML or XHTML content type and a non-empty body. It always uses the
// native fetcher. A failure is a *sources.FetchError whose message names
// the reason: "HTTP 404", "content type application/pdf is not HTML",
// "empty body", "timed out after 10s", or the fetcher's network reason.
func (p *Fetcher) Validate(ctx context.Context, pageURL string) (*Validation, error) {
	if p.Client == nil {
		return nil, &sources.FetchError{Kind: sources.KindPermanent, Msg: "web validation needs the native fetcher"}
	}
	timeout := p.ValidateTimeout
	if timeout <= 0 {
		timeout = DefaultValidateTimeout
	}
	vctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := p.Client.Get(vctx, fetch.Request{URL: pageURL, Accept: htmlAccept})
	if err != nil {
		if ctx.Err() == nil && errors.Is(vctx.Err(), context.DeadlineExceeded) {
			return nil, &sources.FetchError{Kind: sources.KindTransient, Msg: "timed out after " + fmtDuration(timeout)}
		}
		return nil, asFetchError(err)
	}
	if resp.Status < 200 || resp.Status > 299 {
		return nil, &sources.FetchError{Kind: sources.KindPermanent, Status: resp.Status, Msg: fmt.Sprintf("HTTP %d", resp.Status)}
	}
	if len(bytes.TrimSpace(resp.Body)) == 0 {
		return nil, &sources.FetchError{Kind: sources.KindPermanent, Status: resp.Status, Msg: "empty body"}
	}
	if ct, ok := htmlType(resp.ContentType, resp.Body); !ok {
		return nil, &sources.FetchError{Kind: sources.KindPermanent, Status: resp.Status, Msg: notHTML(ct)}
	}
	body := toUTF8(resp.Body, resp.Header.Get("Content-Type"))
	meta := extract.ParseMetadata(body, resp.FinalURL)
	return &Validation{Title: meta.Title, FeedLinks: meta.FeedLinks}, nil
}

// fmtDuration prints whole seconds as "10s", shorter spans as Go does.
func fmtDuration(d time.Duration) string {
	if d >= time.Second && d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}
