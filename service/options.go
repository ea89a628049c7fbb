package service

import (
	"errors"
	"fmt"
	"time"

	"github.com/feedpoller/feedpoller/analysis/digest"
	"github.com/feedpoller/feedpoller/analysis/rank"
	"github.com/feedpoller/feedpoller/integrations/opml"
	"github.com/feedpoller/feedpoller/model"
)

// Options configures a Service. A zero field takes its default
// (DefaultOptions); New refuses a value out of range, naming the field.
type Options struct {
	// Store is the database; required.
	Store Store
	// Validator checks rss and web URLs before they are stored; nil makes
	// creating those sources fail with ErrUnavailable.
	Validator Validator
	// Poller serves poll-now; nil makes PollSource fail with
	// ErrUnavailable.
	Poller Poller
	// Subscriptions, when set, is told of sources paused, resumed or
	// deleted. Without it their subscriptions are still made due (the
	// store's), for whichever daemon syncs next.
	Subscriptions Subscriptions
	// RSSIntervalMinutes is the polling interval of an rss or api source
	// created without one.
	RSSIntervalMinutes int
	// WebIntervalMinutes is that of a web source (the configuration's
	// web.default_interval_minutes).
	WebIntervalMinutes int
	// DefaultThreshold is the relevance threshold of a profile given
	// without one.
	DefaultThreshold float64
	// ValidateTimeout bounds the fetch that validates a new source,
	// whatever the fetcher's own limits.
	ValidateTimeout time.Duration
	// Reliability gives a source its tier from its URL (the configured
	// domain rules; default the shipped rules).
	Reliability *rank.Classifier
	// Digests reads what digests are built from; nil makes Digest fail
	// with ErrUnavailable.
	Digests DigestStore
	// Tokens counts the tokens of compact digests (cl100k_base); nil
	// loads tokens.For(tokens.CL100kBase) on first use.
	Tokens digest.TokenCounter
	// DigestMaxTokens is the budget of a compact digest asked for
	// without one.
	DigestMaxTokens int
	// ImportHostGap is the least time between the starts of two
	// validation fetches on one host during an OPML import (negative:
	// none); the daemon gives it the fetcher's per-domain gap.
	ImportHostGap time.Duration
	// Webhooks stores webhooks and their delivery log; nil makes the
	// webhook calls fail with ErrUnavailable.
	Webhooks WebhookStore
	// AddressPolicy checks a webhook URL's host when it is created (the
	// fetcher's address policy); required with Webhooks.
	AddressPolicy AddressPolicy
	// APITokens stores the API's bearer tokens; nil makes the token calls
	// fail with ErrUnavailable.
	APITokens TokenStore
}

// Defaults of Options' zero fields; the threshold's is the model's, the
// digest budget's the digest's, the import gap's the OPML import's.
const (
	DefaultRSSIntervalMinutes = 30
	DefaultWebIntervalMinutes = 360
	DefaultValidateTimeout    = 60 * time.Second
)

// DefaultOptions are the built-in defaults, without the dependencies.
func DefaultOptions() Options { return Options{}.withDefaults() }

// withDefaults fills the zero fields; a negative ImportHostGap keeps
// meaning none.
func (o Options) withDefaults() Options {
	if o.RSSIntervalMinutes == 0 {
		o.RSSIntervalMinutes = DefaultRSSIntervalMinutes
	}
	if o.WebIntervalMinutes == 0 {
		o.WebIntervalMinutes = DefaultWebIntervalMinutes
	}
	if o.DefaultThreshold == 0 {
		o.DefaultThreshold = model.DefaultThreshold
	}
	if o.ValidateTimeout == 0 {
		o.ValidateTimeout = DefaultValidateTimeout
	}
	if o.Reliability == nil {
		o.Reliability = defaultClassifier()
	}
	if o.DigestMaxTokens == 0 {
		o.DigestMaxTokens = digest.DefaultMaxTokens
	}
	if o.ImportHostGap == 0 {
		o.ImportHostGap = opml.DefaultHostGap
	}
	return o
}

// defaultClassifier is the classifier of rank's shipped rules, which are
// valid (the rank package's tests load them).
func defaultClassifier() *rank.Classifier {
	c, err := rank.NewClassifier(rank.DefaultRules())
	if err != nil {
		panic("service: the shipped reliability rules are invalid: " + err.Error())
	}
	return c
}

// check names the first bad option.
func (o Options) check() error {
	switch {
	case o.Store == nil:
		return errors.New("service: a store is required")
	case o.RSSIntervalMinutes < MinIntervalMinutes || o.RSSIntervalMinutes > MaxIntervalMinutes:
		return fmt.Errorf("service: RSSIntervalMinutes %d is outside %d..%d", o.RSSIntervalMinutes, MinIntervalMinutes, MaxIntervalMinutes)
	case o.WebIntervalMinutes < MinIntervalMinutes || o.WebIntervalMinutes > MaxIntervalMinutes:
		return fmt.Errorf("service: WebIntervalMinutes %d is outside %d..%d", o.WebIntervalMinutes, MinIntervalMinutes, MaxIntervalMinutes)
	case !(o.DefaultThreshold >= 0 && o.DefaultThreshold <= 1):
		return fmt.Errorf("service: DefaultThreshold %v is outside 0..1", o.DefaultThreshold)
	case o.ValidateTimeout <= 0:
		return fmt.Errorf("service: ValidateTimeout %v must be positive", o.ValidateTimeout)
	case o.DigestMaxTokens <= 0:
		return fmt.Errorf("service: DigestMaxTokens %d must be positive", o.DigestMaxTokens)
	case o.Webhooks != nil && o.AddressPolicy == nil:
		return errors.New("service: webhooks need an address policy to check their URLs")
	}
	return nil
}

// Service is the one way in for creating, changing, deleting and polling
// sources and workspaces: the API, the command line and whatever comes
// next call it, so each gets the same rules, defaults and errors.
type Service struct {
	opts  Options
	rules *Rules
}

// New fills in the defaults of opts and builds a Service, refusing
// options that are out of range.
func New(opts Options) (*Service, error) {
	opts = opts.withDefaults()
	if err := opts.check(); err != nil {
		return nil, err
	}
	return &Service{opts: opts, rules: NewRules()}, nil
}

// SetSubscriptions sets the subscriptions told of paused, resumed and
// deleted sources (nil: none), for a daemon that builds them after the
// service.
func (s *Service) SetSubscriptions(subs Subscriptions) { s.opts.Subscriptions = subs }
