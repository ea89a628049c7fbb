package feedfarm

import (
	"math"
	"time"
)

// Format chooses which syndication formats the farm serves.
type Format int

const (
	// FormatMixed serves RSS 2.0 on even feed numbers and Atom on odd ones.
	FormatMixed Format = iota
	// FormatRSS serves RSS 2.0 only.
	FormatRSS
	// FormatAtom serves Atom 1.0 only.
	FormatAtom
)

// String names the format as the command's -format flag spells it.
func (f Format) String() string {
	switch f {
	case FormatRSS:
		return "rss"
	case FormatAtom:
		return "atom"
	}
	return "mixed"
}

// Defaults applied by New to zero or out-of-range Options fields.
const (
	DefaultFeeds        = 100
	DefaultItemsPerFeed = 20
	DefaultBodyBytes    = 2048
	DefaultKeepTimes    = 64
)

// Options configures a Farm. The zero value is usable: every zero field takes
// its default.
type Options struct {
	// Feeds is how many feeds are served, numbered 0..Feeds-1. Default 100.
	Feeds int
	// ItemsPerFeed is how many items every feed document carries. Default 20.
	ItemsPerFeed int
	// BodyBytes is the approximate length of each item's HTML body
	// (paragraphs, a heading, links and a list); the body is grown sentence by
	// sentence until it reaches this length. Default 2048.
	BodyBytes int
	// ChangeShare is the share of feeds, in [0, 1], that change between
	// polls: such a feed gets a new item at the top on each request after its
	// first. Which feeds change is chosen from Seed and is fixed for the
	// farm's life; exactly round(ChangeShare × Feeds) of them do.
	ChangeShare float64
	// Latency delays every feed and item response, as a slow origin would.
	Latency time.Duration
	// Format chooses RSS, Atom or the default half-and-half mix.
	Format Format
	// Seed determines all content, dates and the set of changing feeds.
	Seed int64
	// KeepTimes is how many recent request times are kept per feed for
	// Stats. Default 64; negative keeps none.
	KeepTimes int
	// Epoch is the earliest time a feed's first item can be dated, and
	// DateSpread how far after it feeds start: feed n's items run from a
	// start drawn from [Epoch, Epoch+DateSpread), one every 1 to 10
	// minutes. Defaults: 2025-01-01 and 30 days, far enough in the past
	// that no benchmark reaches the future. A benchmark of what happens to
	// recent news (stories are grouped within a window of days) sets an
	// Epoch a few days ago.
	Epoch      time.Time
	DateSpread time.Duration
	// Text is the model the prose is drawn from: TextUniform (the
	// default, what every earlier figure was measured on) or TextNews.
	Text Text
	// Sites gives every feed a site of its own, as outlets have: its
	// items and its site link point at http://feed{n}.example, a domain
	// per feed, so that a reader counts the feeds as independent sources.
	// Nothing is served there: a reader that fetches an item's page gets
	// no answer and keeps the feed's own text. Off, they point at the
	// farm's own address (its /item pages).
	Sites bool
}

// withDefaults returns opts with zero and out-of-range fields replaced, so
// the rest of the package never re-checks them.
func (o Options) withDefaults() Options {
	if o.Feeds <= 0 {
		o.Feeds = DefaultFeeds
	}
	if o.ItemsPerFeed <= 0 {
		o.ItemsPerFeed = DefaultItemsPerFeed
	}
	if o.BodyBytes <= 0 {
		o.BodyBytes = DefaultBodyBytes
	}
	if math.IsNaN(o.ChangeShare) || o.ChangeShare < 0 {
		o.ChangeShare = 0
	}
	if o.ChangeShare > 1 {
		o.ChangeShare = 1
	}
	if o.Latency < 0 {
		o.Latency = 0
	}
	if o.Format < FormatMixed || o.Format > FormatAtom {
		o.Format = FormatMixed
	}
	if o.Text != TextNews {
		o.Text = TextUniform
	}
	if o.Epoch.IsZero() {
		o.Epoch = defaultEpoch
	}
	if o.DateSpread <= 0 {
		o.DateSpread = defaultDateSpread
	}
	switch {
	case o.KeepTimes == 0:
		o.KeepTimes = DefaultKeepTimes
	case o.KeepTimes < 0:
		o.KeepTimes = 0
	}
	return o
}
