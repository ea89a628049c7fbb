package firecrawl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	fc "github.com/mendableai/firecrawl-go/v2"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/fetch"
)

// Defaults for the zero values of Options.
const (
	DefaultAPIURL         = "https://api.firecrawl.dev"
	DefaultTimeout        = 30 * time.Second
	DefaultMaxBodyBytes   = 20 << 20
	DefaultAttempts       = 3
	DefaultRetryBaseDelay = time.Second
	// backstopSlack is how much longer than the scrape timeout we wait for
	// an answer: Firecrawl should answer 408 first.
	backstopSlack = 15 * time.Second
)

// Options configures a Client. Zero values take the defaults above.
type Options struct {
	// APIKey is required (self-hosted instances accept any non-empty key).
	// The SDK's fallback to FIRECRAWL_API_KEY is never used.
	APIKey string
	// APIURL is the API base, e.g. a self-hosted instance; a trailing slash
	// is removed (the SDK would post to //v1/scrape).
	APIURL string
	// Timeout is the scrape timeout sent to Firecrawl (ScrapeParams.Timeout);
	// the HTTP client gives up 15 s after it.
	Timeout time.Duration
	// MaxBodyBytes caps Firecrawl's response body.
	MaxBodyBytes int64
	// Attempts is how many times a transient failure is tried within one
	// Scrape (1 disables retries).
	Attempts int
	// RetryBaseDelay is the first backoff; it doubles per attempt, with
	// jitter. Negative means no delay (tests).
	RetryBaseDelay time.Duration
	// Transport carries the requests; default a clone of
	// http.DefaultTransport.
	Transport http.RoundTripper
	// Log receives retry notes; default slog.Default().
	Log *slog.Logger
	// Now is the clock for Retry-After; default time.Now.
	Now func() time.Time
	// Policy is the address policy every target URL must pass before it is
	// sent, and every final URL Firecrawl reports before its page is
	// used: Firecrawl fetches whatever it is given, internal addresses
	// included. The daemon passes the native fetcher's policy; nil builds
	// one that refuses private networks and resolves through the system.
	Policy AddressPolicy
}

// AddressPolicy decides which URLs may be fetched on our behalf
// (*fetch.Policy). CheckURL's error says why not, as a *sources.FetchError.
type AddressPolicy interface {
	CheckURL(ctx context.Context, rawURL string) error
}

// Client scrapes pages through Firecrawl. It is safe for concurrent use.
type Client struct {
	opts  Options
	slack time.Duration
}

// New checks opts and builds a Client.
func New(opts Options) (*Client, error) {
	if strings.TrimSpace(opts.APIKey) == "" {
		return nil, errors.New("firecrawl: an API key is required (FIRECRAWL_API_KEY)")
	}
	if opts.APIURL == "" {
		opts.APIURL = DefaultAPIURL
	}
	opts.APIURL = strings.TrimRight(opts.APIURL, "/")
	u, err := url.Parse(opts.APIURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("firecrawl: API URL %q is not an absolute http(s) URL", opts.APIURL)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	opts.Timeout = max(opts.Timeout, time.Millisecond)
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.Attempts <= 0 {
		opts.Attempts = DefaultAttempts
	}
	switch {
	case opts.RetryBaseDelay == 0:
		opts.RetryBaseDelay = DefaultRetryBaseDelay
	case opts.RetryBaseDelay < 0:
		opts.RetryBaseDelay = 0
	}
	if opts.Transport == nil {
		opts.Transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Policy == nil {
		p, _ := fetch.NewPolicy(fetch.Options{Logger: opts.Log})
		opts.Policy = p
	}
	return &Client{opts: opts, slack: backstopSlack}, nil
}

// Timeout is the scrape timeout sent to Firecrawl.
func (c *Client) Timeout() time.Duration { return c.opts.Timeout }

// Scrape fetches pageURL through Firecrawl as cleaned HTML plus metadata.
//
// The URL must pass the address policy before it is sent, and the page's
// final URL (metadata.url, sourceURL) after: a page that came from a
// refused address is discarded. Transient failures (5xx, broken answers)
// are retried with backoff; 400/401/402/403 and 429 never are, nor are
// timeouts (408, or no answer in time): the server's job runs on after
// either, so another attempt would only start a second one; the next poll
// is the retry. A target that answered an error status
// (metadata.statusCode ≥ 400) or an empty page is a failure.
//
// Every error is a *sources.FetchError. Its Status is the target's own
// HTTP status when Firecrawl reported one, and 0 when Firecrawl itself
// failed: then an *APIError in its chain carries Firecrawl's status and
// error code.
func (c *Client) Scrape(ctx context.Context, pageURL string) (*Page, error) {
	if err := c.opts.Policy.CheckURL(ctx, pageURL); err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		page, fe := c.scrapeOnce(ctx, pageURL)
		if fe == nil {
			if fe := c.checkLanding(ctx, pageURL, page); fe != nil {
				return nil, fe
			}
			if fe := checkTarget(page); fe != nil {
				return nil, fe
			}
			return page, nil
		}
		if !retryable(fe) || attempt >= c.opts.Attempts || ctx.Err() != nil {
			return nil, fe
		}
		wait := sources.RetryWait(c.opts.RetryBaseDelay, attempt)
		c.opts.Log.Debug("firecrawl: retrying scrape", "url", pageURL, "attempt", attempt, "err", fe.Error(), "wait", wait)
		if sources.Sleep(ctx, wait) != nil {
			return nil, fe
		}
	}
}

// scrapeOnce makes one SDK call through a capturing transport.
func (c *Client) scrapeOnce(ctx context.Context, pageURL string) (*Page, *sources.FetchError) {
	seen := &exchange{}
	app := &fc.FirecrawlApp{
		APIKey: c.opts.APIKey,
		APIURL: c.opts.APIURL,
		Client: &http.Client{
			Timeout:   c.opts.Timeout + c.slack,
			Transport: &captureTransport{base: c.opts.Transport, ctx: ctx, maxBody: c.opts.MaxBodyBytes, seen: seen},
			// A redirect would turn the POST into a GET; report it instead.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
	timeoutMS := int(c.opts.Timeout / time.Millisecond)
	_, sdkErr := app.ScrapeURL(pageURL, &fc.ScrapeParams{Formats: []string{"html"}, Timeout: &timeoutMS})
	return c.interpret(ctx, seen, sdkErr)
}
