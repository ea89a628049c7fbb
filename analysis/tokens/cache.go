package tokens

import (
	"math/bits"
	"math/rand/v2"
	"sync/atomic"
)

// pieceCache remembers the token counts of recently merged short pieces
// across Count calls: articles share many of them (names, rare words,
// markup), and a merge costs a look-up in the multi-megabyte rank table
// per pair of parts, where a hit here reads one 64-byte line.
//
// It is a set-associative table of fixed size: two entries a set, each
// holding the piece's bytes, which a hit compares in full (a hash picks
// the set and is never trusted alone). Concurrent Count calls share it
// without locks: every word is read and written atomically, and an
// entry's head carries a version that a writer bumps, so a reader that
// raced a writer sees the head change and treats the entry as a miss
// (a sequence lock). A writer that finds the entry being written skips
// its insert; a miss costs only the count done anyway.
type pieceCache struct {
	entries []cacheEntry
	shift   uint   // 64 - log2(sets): a set is the hash's top bits
	seed    uint64 // keeps crafted text from choosing the sets it fills
}

// cacheKeyLen is the longest piece the cache holds: three words of
// bytes. Nearly all pieces of text and markup are shorter; longer ones
// are rare enough to count each time.
const cacheKeyLen = 24

// cacheSets is the number of sets of each counter's cache: 16 384 sets
// of two 32-byte entries are 1 MiB per encoding.
const cacheSets = 1 << 14

// cacheEntry is 32 bytes, two to a cache line. head is 0 when empty,
// else version<<32 | len<<8 | count, with cacheWriting set while a
// writer fills key.
type cacheEntry struct {
	head atomic.Uint64
	key  [3]atomic.Uint64
}

const cacheWriting = 1 << 31

// newPieceCache makes a cache of sets sets, a power of two.
func newPieceCache(sets int) *pieceCache {
	return &pieceCache{
		entries: make([]cacheEntry, 2*sets),
		shift:   uint(64 - bits.TrailingZeros(uint(sets))),
		seed:    rand.Uint64(),
	}
}

// cacheKey packs a piece of at most cacheKeyLen bytes into three words,
// zero-padded; with its length it identifies the piece.
func cacheKey(p string) (k [3]uint64) {
	i := 0
	for ; i+8 <= len(p); i += 8 {
		k[i>>3] = le64(p[i:])
	}
	if i < len(p) {
		var t uint64
		for j := len(p) - 1; j >= i; j-- {
			t = t<<8 | uint64(p[j])
		}
		k[i>>3] = t
	}
	return k
}

// le64 reads eight bytes of s as one little-endian word (one load).
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// set returns the two entries where the piece of length n packed in k
// belongs. The hash mixes the words the key is made of anyway, cheaper
// than hashing the bytes again; entries compare the whole key, so its
// quality only spreads the load.
func (c *pieceCache) set(k [3]uint64, n int) []cacheEntry {
	h := (k[0]^c.seed)*0x9e3779b97f4a7c15 ^ k[1]*0xc2b2ae3d27d4eb4f ^ k[2]*0x165667b19e3779f9 ^ uint64(n)
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	return c.entries[2*(h>>c.shift):][:2]
}

// get returns the count of the piece of length n packed in k.
func (c *pieceCache) get(k [3]uint64, n int) (int, bool) {
	set := c.set(k, n)
	for i := range set {
		e := &set[i]
		h := e.head.Load()
		if h&cacheWriting != 0 || int(h>>8&0xff) != n {
			continue
		}
		k0, k1, k2 := e.key[0].Load(), e.key[1].Load(), e.key[2].Load()
		if e.head.Load() == h && k0 == k[0] && k1 == k[1] && k2 == k[2] {
			return int(h & 0xff), true
		}
	}
	return 0, false
}

// put records that the piece of length n packed in k has count tokens.
func (c *pieceCache) put(k [3]uint64, n int, count int) {
	set := c.set(k, n)
	h0, h1 := set[0].head.Load(), set[1].head.Load()
	// An empty way first; else the victim varies with the versions, so
	// that two pieces of one set do not keep evicting each other.
	way := 0
	switch {
	case h0 == 0:
	case h1 == 0:
		way = 1
	default:
		way = int((h0>>32 ^ h1>>32 ^ k[0]) & 1)
	}
	e := &set[way]
	h := e.head.Load()
	if h&cacheWriting != 0 || !e.head.CompareAndSwap(h, h|cacheWriting) {
		return // another writer has it
	}
	e.key[0].Store(k[0])
	e.key[1].Store(k[1])
	e.key[2].Store(k[2])
	e.head.Store((h>>32+1)<<32 | uint64(n)<<8 | uint64(count))
}
