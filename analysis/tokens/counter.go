// Package tokens counts LLM tokens exactly as tiktoken does, for the
// cl100k_base and o200k_base encodings, from the vocabulary files embedded
// by tiktoken-go-loader (no network). Articles store their counts and the
// compact digest fits a token budget with them.
//
// The counting itself is this package's own: tiktoken-go (the reference
// the tests compare against, token for token) costs about 85 ms of CPU
// and 35 MB per encoding for a benchmark page, five times the whole
// extraction; with the one-pass pre-tokeniser and compact rank table
// here, a benchmark page's four counts (its HTML and its Markdown, both
// encodings) take about 6 ms, and both encodings hold 11.6 MiB (a 9.6 MiB
// rank table and a 2 MiB cache of merged pieces).
package tokens

import (
	"fmt"
	"sync"
	"unicode/utf8"
)

// Encoding names a BPE vocabulary.
type Encoding string

// The two vocabularies counted for every article: cl100k_base (GPT-4,
// GPT-3.5, the text-embedding-3 models) and o200k_base (GPT-4o, GPT-4.1
// and later).
const (
	CL100kBase Encoding = "cl100k_base"
	O200kBase  Encoding = "o200k_base"
)

// Counter counts the tokens of text exactly as tiktoken does for one
// encoding. It is safe for concurrent use.
type Counter struct {
	enc   Encoding
	vocab *vocab
	split func(s string, i int) int
	cache *pieceCache
}

// Each vocabulary is decoded on first use and then kept for the life of
// the process: processes that never count tokens (`feedpoller version`,
// migrations) never pay for it.
var (
	cl100kCounter = sync.OnceValues(func() (*Counter, error) { return newCounter(CL100kBase) })
	o200kCounter  = sync.OnceValues(func() (*Counter, error) { return newCounter(O200kBase) })
)

// For returns the token counter of an encoding, loading its vocabulary on
// first use.
func For(enc Encoding) (*Counter, error) {
	switch enc {
	case CL100kBase:
		return cl100kCounter()
	case O200kBase:
		return o200kCounter()
	}
	return nil, fmt.Errorf("token counter: unknown encoding %q", enc)
}

func newCounter(enc Encoding) (*Counter, error) {
	v, err := loadVocab(enc)
	if err != nil {
		return nil, err
	}
	c := &Counter{enc: enc, vocab: v, split: nextPieceCL100k, cache: newPieceCache(cacheSets)}
	if enc == O200kBase {
		c.split = nextPieceO200k
	}
	return c, nil
}

// Encoding reports which vocabulary c counts.
func (c *Counter) Encoding() Encoding { return c.enc }

// Count returns the number of tokens of s, as tiktoken's encode_ordinary
// gives it: special tokens such as "<|endoftext|>" are counted as the
// ordinary text they are. Invalid UTF-8 is counted as U+FFFD, one per
// invalid byte, as the reference implementation reads it.
func (c *Counter) Count(s string) int {
	if !utf8.ValidString(s) {
		s = string([]rune(s))
	}
	n := 0
	var scratch mergeScratch
	for i := 0; i < len(s); {
		end := c.split(s, i)
		n += c.countPiece(s[i:end], &scratch)
		i = end
	}
	return n
}

// countPiece returns the number of tokens of one pre-tokenised piece. A
// piece that is no single token is merged, and its count is kept in the
// cache: merging costs a look-up per pair of parts, and the pieces that
// need it (names, rare words, markup such as `="` or `></`) recur from
// article to article. Single tokens, most pieces, are not cached: their
// look-up costs about what a hit in the cache costs.
func (c *Counter) countPiece(p string, sc *mergeScratch) int {
	if len(p) <= 1 || c.vocab.lookup(p) >= 0 {
		return min(len(p), 1)
	}
	if len(p) == 2 {
		return 2
	}
	if len(p) > cacheKeyLen {
		return c.vocab.mergePiece(p, sc)
	}
	k := cacheKey(p)
	if n, ok := c.cache.get(k, len(p)); ok {
		return n
	}
	// The cache remembers it beyond this call: mergePiece's own memory
	// of the pieces merged would cost more than it saves.
	n := c.vocab.countMerged(p, sc)
	c.cache.put(k, len(p), n)
	return n
}
