package firecrawl

import (
	"context"
	"errors"

	"github.com/feedpoller/feedpoller/sources"
)

// APIError is a failure Firecrawl itself reported, as opposed to a
// failure of the page it scraped: its HTTP status, its error code
// ("SCRAPE_TIMEOUT", "SCRAPE_ALL_ENGINES_FAILED", …; empty when it sent
// none) and its message.
type APIError struct {
	Status  int
	Code    string
	Message string
}

func (e *APIError) Error() string { return e.Message }

// noRetry marks a failure that another attempt within the same Scrape
// would only repeat at a cost: Firecrawl's job for the first one is still
// running.
type noRetry struct{ err error }

func (n noRetry) Error() string { return n.err.Error() }
func (n noRetry) Unwrap() error { return n.err }

// retryable says whether a failed attempt is worth another within the
// same Scrape: transient failures are, except timeouts. Firecrawl does not
// cancel a scrape when it answers 408 or when the client stops waiting,
// so each retry would start one more job on the server (and may cost one
// more credit) for a page that just took too long.
func retryable(fe *sources.FetchError) bool {
	if fe.Kind != sources.KindTransient {
		return false
	}
	var ae *APIError
	if errors.As(fe.Err, &ae) && ae.Status == 408 {
		return false
	}
	return !errors.As(fe.Err, new(noRetry))
}

// checkLanding discards a page whose final URL (metadata.url, or a
// sourceURL other than what was sent) does not pass the address policy: a
// public page can redirect Firecrawl anywhere, and Firecrawl follows.
func (c *Client) checkLanding(ctx context.Context, sent string, p *Page) *sources.FetchError {
	for _, key := range []string{"url", "sourceURL"} {
		u, _ := p.Metadata[key].(string)
		if u == "" || u == sent {
			continue
		}
		if err := c.opts.Policy.CheckURL(ctx, u); err != nil {
			kind := sources.KindOf(err)
			if kind != sources.KindTransient {
				kind = sources.KindPermanent
			}
			return &sources.FetchError{Kind: kind,
				Msg: "Firecrawl's answer discarded, its final URL failed the address policy", Err: err}
		}
	}
	return nil
}
