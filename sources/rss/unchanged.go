package rss

import (
	"hash/maphash"
	"slices"
	"sync"
)

// Unchanged remembers, for each source this process polled, the entries
// of its feed whose outcome is settled: the poll that last read them
// stored them, or found them stored already. A changed feed usually
// lists mostly such entries (a feed of 20 with one new item), and parsing
// an entry costs about what its share of the document does, while an
// entry byte for byte the same as a settled one would only be parsed to
// be found known again. The fetcher cuts those out of the document before
// gofeed reads it, and reports how many it left out (sources.Result's
// Unchanged).
//
// What is remembered is only a hash per entry, of the entries of the last
// poll or WebSub delivery whose save committed (sources.Result's Settle),
// so a source costs a few bytes per listed entry. A poll whose save failed
// leaves the memory as it was: its new entries are read again next time.
// Nothing is kept across restarts or shared between replicas: a process
// that has not polled a source yet parses its feed whole.
type Unchanged struct {
	seed     maphash.Seed
	mu       sync.Mutex
	bySource map[int64]settled
}

// settled is what is remembered of one source's feed.
type settled struct {
	// url is the feed's address when it was read: a source whose address
	// changed is read whole.
	url string
	// context is the hash of what an entry's reading depends on besides
	// its own bytes (feedContextHash): when it changes, every entry is
	// read again.
	context uint64
	// digests are the settled entries' hashes, sorted.
	digests []uint64
}

// NewUnchanged returns an empty memory of settled entries.
func NewUnchanged() *Unchanged {
	return &Unchanged{seed: maphash.MakeSeed(), bySource: map[int64]settled{}}
}

// of is what is remembered of source's feed at url.
func (u *Unchanged) of(source int64, url string) (settled, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	s, ok := u.bySource[source]
	if !ok || s.url != url {
		return settled{}, false
	}
	return s, true
}

// settle replaces what is remembered of source's feed. The entries a feed
// no longer lists are forgotten with it.
func (u *Unchanged) settle(source int64, s settled) {
	slices.Sort(s.digests)
	s.digests = slices.Compact(s.digests)
	u.mu.Lock()
	defer u.mu.Unlock()
	u.bySource[source] = s
}

// has reports whether digest is one of the settled entries.
func (s settled) has(digest uint64) bool {
	_, ok := slices.BinarySearch(s.digests, digest)
	return ok
}

// Forget drops what is remembered of source's feed, for a caller that
// removed the source's articles behind the poller's back (a benchmark
// that deletes them to store them again): its next fetch parses the feed
// whole.
func (u *Unchanged) Forget(source int64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.bySource, source)
}

// read reads body as the feed of source, whose address is sourceURL, with
// what u remembers of it (see readFeed), and returns with it the Settle of
// its entries: nil when u is nil, the source unknown (0), or the document
// not read as entries.
func (u *Unchanged) read(body []byte, contentType, charset, feedURL string, maxItems int, source int64,
	sourceURL string) (*parsedFeed, func([]uint64), error) {
	var prior *settled
	if u != nil && source > 0 {
		if s, ok := u.of(source, sourceURL); ok {
			prior = &s
		}
	}
	parsed, err := readFeed(body, contentType, charset, feedURL, maxItems, u, prior)
	if err != nil || u == nil || source <= 0 || !parsed.entries {
		return parsed, nil, err
	}
	// The entries left unread stay settled, and so do those the save
	// settles.
	return parsed, func(digests []uint64) {
		all := make([]uint64, 0, len(parsed.unchanged)+len(digests))
		all = append(append(all, parsed.unchanged...), digests...)
		u.settle(source, settled{url: sourceURL, context: parsed.context, digests: all})
	}, nil
}
