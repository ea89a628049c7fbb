package tokens

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/base64"
	"fmt"
	"hash/maphash"
	"math"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// vocab is one BPE vocabulary in a compact, read-only form: the token
// byte strings back to back in one arena and an open-addressing table
// from byte string to rank. The vocabulary files ship inside
// tiktoken-go-loader (no network). Loaded as tiktoken-go loads them (Go
// maps both ways and a sorted copy) the two vocabularies hold 35 MB for
// the life of the process and take 0.5 s of CPU to build; this form holds
// 9 MB and takes 0.1 s.
type vocab struct {
	seed  maphash.Seed
	arena []byte
	// slots hold, for each token not in short, where its bytes are in
	// the arena, their length, its rank and the top bits of its hash
	// (see slotOf), 0 for an empty slot: a look-up reads one slot and,
	// when the tag and length agree, the token's bytes, two reads that
	// miss the processor's caches rather than four.
	slots []uint64
	// maxLen is the length of the longest token.
	maxLen int
	mask   uint64
	// pairs holds the rank of every two-byte token (-1 for none): a merge
	// starts by ranking every adjacent byte pair of its piece, and this
	// table stays in the processor's cache where the big one does not.
	pairs []int32
	// short holds every token of 3 to shortMaxLen bytes, most of the
	// pieces text is cut into, with its bytes inline and a hash that is
	// a multiply of them: a look-up reads one entry (two when probing
	// crosses into the next), where the big table reads a slot and then
	// the token's bytes in the arena, two reads that miss the
	// processor's caches.
	short     []shortEntry
	shortMask uint64
}

// shortEntry is one token of the short table: lo holds its first eight
// bytes, hi the next four (zero-padded), its length at shortLenShift and
// its rank above shortRankShift. A length of 0 marks an empty entry.
type shortEntry struct{ lo, hi uint64 }

const (
	shortMaxLen    = 12
	shortLenShift  = 32
	shortRankShift = 40
	shortKeyMask   = 1<<shortRankShift - 1
)

// shortKey packs a piece of 3 to shortMaxLen bytes as a short entry's
// words, without its rank. Beyond three bytes it reads whole words, the
// last one overlapping the first and shifted to drop the bytes read
// twice: a piece is keyed for every look-up, those of merges included.
func shortKey(s string) (lo, hi uint64) {
	n := len(s)
	switch {
	case n >= 8:
		lo = le64(s)
		hi = le32(s[n-4:]) >> (8 * (12 - n))
	case n >= 4:
		lo = le32(s) | le32(s[n-4:])>>(8*(8-n))<<32
	default:
		lo = uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16
	}
	return lo, hi | uint64(n)<<shortLenShift
}

// le32 reads four bytes of s as one little-endian word (one load).
func le32(s string) uint64 {
	_ = s[3]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
}

// shortHash mixes a key's words; entries compare the whole key, so the
// hash only spreads the load. It has no seed: the table is built once
// and never grows, so the worst a crafted text can do is look up pieces
// of its longest run of entries, never change a count.
func shortHash(lo, hi uint64) uint64 {
	h := lo*0x9e3779b97f4a7c15 ^ hi*0xc2b2ae3d27d4eb4f
	return h ^ h>>29
}

// A slot packs a token's arena offset (bits 0-21), rank (22-41), length
// (42-49, never 0, so that no token's slot is 0) and the top 14 bits of
// its hash.
const (
	slotRankShift = 22
	slotLenShift  = 42
	slotTagShift  = 50
	slotMaxOffset = 1<<slotRankShift - 1
	slotMaxRank   = 1<<(slotLenShift-slotRankShift) - 1
	slotMaxLen    = 1<<(slotTagShift-slotLenShift) - 1
)

func slotOf(hash uint64, offset, length int, rank uint32) uint64 {
	return hash>>slotTagShift<<slotTagShift | uint64(length)<<slotLenShift |
		uint64(rank)<<slotRankShift | uint64(offset)
}

func loadVocab(enc Encoding) (*vocab, error) {
	// Read line by line: ReadFile would copy the whole file (5 MB for both
	// vocabularies) only to throw it away.
	f, err := assets.Assets.Open(string(enc) + ".tiktoken")
	if err != nil {
		return nil, fmt.Errorf("load %s vocabulary: %w", enc, err)
	}
	defer f.Close()
	v := &vocab{seed: maphash.MakeSeed()}
	// start and rank are needed only to build the table: token k's bytes
	// are arena[start[k]:start[k+1]].
	var start, rank []uint32
	if info, err := f.Stat(); err == nil {
		// About 13 bytes of file per token, half of them token bytes.
		v.arena = make([]byte, 0, info.Size()/2)
		start = make([]uint32, 0, info.Size()/13)
		rank = make([]uint32, 0, info.Size()/13)
	}
	buf := make([]byte, 0, 256)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := bytes.TrimRight(sc.Bytes(), "\r")
		if len(line) == 0 {
			continue
		}
		sp := bytes.IndexByte(line, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("load %s vocabulary: malformed line %q", enc, line)
		}
		buf = buf[:base64.StdEncoding.DecodedLen(sp)]
		n, err := base64.StdEncoding.Decode(buf, line[:sp])
		if err != nil {
			return nil, fmt.Errorf("load %s vocabulary: %w", enc, err)
		}
		r, err := parseRank(line[sp+1:])
		if err != nil {
			return nil, fmt.Errorf("load %s vocabulary: %w", enc, err)
		}
		if n == 0 || n > slotMaxLen || r > slotMaxRank || len(v.arena) > slotMaxOffset {
			return nil, fmt.Errorf("load %s vocabulary: token %q of rank %d does not fit the rank table", enc, buf[:n], r)
		}
		start = append(start, uint32(len(v.arena)))
		v.arena = append(v.arena, buf[:n]...)
		v.maxLen = max(v.maxLen, n)
		rank = append(rank, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("load %s vocabulary: %w", enc, err)
	}
	start = append(start, uint32(len(v.arena)))
	token := func(k int) []byte { return v.arena[start[k]:start[k+1]] }
	v.pairs = make([]int32, 1<<16)
	for i := range v.pairs {
		v.pairs[i] = -1
	}
	for k := range rank {
		if t := token(k); len(t) == 2 {
			v.pairs[int(t[0])<<8|int(t[1])] = int32(rank[k])
		}
	}
	isShort := func(t []byte) bool { return len(t) >= 3 && len(t) <= shortMaxLen }
	nShort := 0
	for k := range rank {
		if isShort(token(k)) {
			nShort++
		}
	}
	// The big table holds the tokens the short one does not.
	size := uint64(1)
	for size < uint64(len(rank)-nShort)*2 {
		size <<= 1
	}
	v.slots = make([]uint64, size)
	v.mask = size - 1
	for k := range rank {
		t := token(k)
		if isShort(t) {
			continue
		}
		hash := maphash.Bytes(v.seed, t)
		h := hash & v.mask
		for v.slots[h] != 0 {
			h = (h + 1) & v.mask
		}
		v.slots[h] = slotOf(hash, int(start[k]), len(t), rank[k])
	}
	// At most three quarters full: probes stay within a cache line or
	// two, and the two tables together are no larger than the one table
	// of every token was.
	size = 1
	for size < uint64(nShort)*4/3 {
		size <<= 1
	}
	v.short = make([]shortEntry, size)
	v.shortMask = size - 1
	for k := range rank {
		t := token(k)
		if !isShort(t) {
			continue
		}
		lo, hi := shortKey(string(t))
		h := shortHash(lo, hi) & v.shortMask
		for v.short[h].hi != 0 {
			h = (h + 1) & v.shortMask
		}
		v.short[h] = shortEntry{lo: lo, hi: hi | uint64(rank[k])<<shortRankShift}
	}
	return v, nil
}

func parseRank(b []byte) (uint32, error) {
	if len(b) == 0 || len(b) > 9 {
		return 0, fmt.Errorf("bad rank %q", b)
	}
	var r uint32
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("bad rank %q", b)
		}
		r = r*10 + uint32(c-'0')
	}
	return r, nil
}

// lookup returns the rank of a byte string, or -1 when it is no token.
func (v *vocab) lookup(s string) int {
	if len(s) == 2 {
		return int(v.pairs[int(s[0])<<8|int(s[1])])
	}
	if len(s) > v.maxLen {
		return -1
	}
	if len(s) >= 3 && len(s) <= shortMaxLen {
		lo, hi := shortKey(s)
		for h := shortHash(lo, hi) & v.shortMask; ; h = (h + 1) & v.shortMask {
			e := &v.short[h]
			if e.hi == 0 {
				return -1
			}
			if e.lo == lo && e.hi&shortKeyMask == hi {
				return int(e.hi >> shortRankShift)
			}
		}
	}
	hash := maphash.String(v.seed, s)
	want := slotOf(hash, 0, len(s), 0)
	for h := hash & v.mask; ; h = (h + 1) & v.mask {
		slot := v.slots[h]
		if slot == 0 {
			return -1
		}
		if slot&^(1<<slotLenShift-1) != want {
			continue
		}
		off := int(slot & slotMaxOffset)
		if string(v.arena[off:off+len(s)]) == s {
			return int(slot >> slotRankShift & slotMaxRank)
		}
	}
}

// maxMergePiece bounds the piece handed to one byte-pair merge. Natural
// text never comes near it (a piece is a word, a number or a run of
// punctuation); a hostile megabyte of letters is merged in slices of
// this size, which keeps the cost linear at the price of an inexact
// count for that page alone.
const maxMergePiece = 1 << 16

// quadraticMergeLimit is the piece length up to which the simple merge
// (rescan for the lowest rank after each merge) is faster than the heap.
const quadraticMergeLimit = 128

// mergePiece returns the number of tokens of a pre-tokenised piece that
// is no single token.
func (v *vocab) mergePiece(p string, sc *mergeScratch) int {
	if n, ok := sc.seen[p]; ok {
		return n
	}
	n := 0
	for rest := p; len(rest) > 0; {
		chunk := rest[:min(len(rest), maxMergePiece)]
		n += v.countMerged(chunk, sc)
		rest = rest[len(chunk):]
	}
	if sc.seen == nil {
		sc.seen = make(map[string]int)
	}
	sc.seen[p] = n
	return n
}

func (v *vocab) countMerged(p string, sc *mergeScratch) int {
	if len(p) <= 1 {
		return len(p)
	}
	if len(p) <= quadraticMergeLimit {
		return v.mergeQuadratic(p, sc)
	}
	return v.mergeHeap(p, sc)
}

// mergeScratch is reused between the pieces of one Count call. seen
// remembers the pieces too long for the counter's cache already merged:
// a page repeats its long class names, URLs and attribute values, and a
// merge costs a dozen lookups.
type mergeScratch struct {
	parts         []mergePart // mergeHeap's
	queue         mergeQueue
	starts, ranks []int32 // mergeQuadratic's
	seen          map[string]int
}

type mergePart struct {
	start int
	rank  int // rank of this part joined with the next; MaxInt for none
	prev  int
	next  int
}

// pairRank is the rank of the bytes from part i to the end of the part
// after next, i.e. of i merged with its successor, or MaxInt.
func (v *vocab) pairRank(p string, parts []mergePart, i int) int {
	j := parts[i].next
	if j < 0 {
		return math.MaxInt
	}
	end := len(p)
	if k := parts[j].next; k >= 0 {
		end = parts[k].start
	}
	if r := v.lookup(p[parts[i].start:end]); r >= 0 {
		return r
	}
	return math.MaxInt
}

// mergeQuadratic is tiktoken's byte-pair merge: repeatedly join the
// adjacent pair of lowest rank, the leftmost on a tie, until no pair is
// a token. It returns how many parts remain. The parts are two arrays,
// where they start and the rank of each joined with the next, and a join
// moves the parts after it down: for the short pieces it is used for,
// that costs less than following links, and the scan for the lowest rank
// reads consecutive words.
func (v *vocab) mergeQuadratic(p string, sc *mergeScratch) int {
	n := len(p)
	if cap(sc.starts) < n+1 {
		sc.starts = make([]int32, n+1)
		sc.ranks = make([]int32, n+1)
	}
	// starts[m] is the end of the piece; ranks[m-1] is always none.
	starts, ranks := sc.starts[:n+1], sc.ranks[:n+1]
	for i := range starts {
		starts[i] = int32(i)
	}
	for i := range n - 1 {
		ranks[i] = v.pairs[int(p[i])<<8|int(p[i+1])]
		if ranks[i] < 0 {
			ranks[i] = noRank
		}
	}
	ranks[n-1] = noRank
	m := n
	// rank is the rank of part i joined with the next, or noRank.
	rank := func(i int) int32 {
		if i+2 > m {
			return noRank
		}
		if r := v.lookup(p[starts[i]:starts[i+2]]); r >= 0 {
			return int32(r)
		}
		return noRank
	}
	for {
		best, bestRank := -1, int32(noRank)
		for i, r := range ranks[:m-1] {
			if r < bestRank {
				best, bestRank = i, r
			}
		}
		if best < 0 {
			return m
		}
		copy(starts[best+1:m], starts[best+2:m+1])
		copy(ranks[best+1:m-1], ranks[best+2:m])
		m--
		ranks[best] = rank(best)
		if best > 0 {
			ranks[best-1] = rank(best - 1)
		}
	}
}

// noRank marks a pair of parts that is no token in mergeQuadratic.
const noRank = math.MaxInt32

// mergeHeap gives the same result as mergeQuadratic in O(n log n): the
// candidate pairs wait in a heap ordered by rank, then position, and a
// candidate whose parts changed since it was queued is skipped.
func (v *vocab) mergeHeap(p string, sc *mergeScratch) int {
	parts := sc.reset(len(p))
	q := sc.queue[:0]
	for i := range parts {
		parts[i].rank = v.pairRank(p, parts, i)
		if parts[i].rank != math.MaxInt {
			q = append(q, mergeCand{rank: parts[i].rank, start: parts[i].start, part: i})
		}
	}
	heap.Init(&q)
	count := len(parts)
	for q.Len() > 0 {
		c := heap.Pop(&q).(mergeCand)
		i := c.part
		if parts[i].start < 0 || parts[i].rank != c.rank {
			continue // merged away, or its pair changed
		}
		prev := v.join(p, parts, i)
		count--
		if parts[i].rank != math.MaxInt {
			heap.Push(&q, mergeCand{rank: parts[i].rank, start: parts[i].start, part: i})
		}
		if prev >= 0 && parts[prev].rank != math.MaxInt {
			heap.Push(&q, mergeCand{rank: parts[prev].rank, start: parts[prev].start, part: prev})
		}
	}
	sc.queue = q
	return count
}

// join merges part i with its successor, updates the ranks of i and of
// its predecessor, and returns the predecessor (-1 for none).
func (v *vocab) join(p string, parts []mergePart, i int) int {
	j := parts[i].next
	parts[i].next = parts[j].next
	if k := parts[j].next; k >= 0 {
		parts[k].prev = i
	}
	parts[j].start = -1
	parts[i].rank = v.pairRank(p, parts, i)
	prev := parts[i].prev
	if prev >= 0 {
		parts[prev].rank = v.pairRank(p, parts, prev)
	}
	return prev
}

func (sc *mergeScratch) reset(n int) []mergePart {
	if cap(sc.parts) < n {
		sc.parts = make([]mergePart, n)
	}
	parts := sc.parts[:n]
	for i := range parts {
		parts[i] = mergePart{start: i, prev: i - 1, next: i + 1}
	}
	parts[n-1].next = -1
	return parts
}

type mergeCand struct {
	rank, start, part int
}

type mergeQueue []mergeCand

func (q mergeQueue) Len() int { return len(q) }
func (q mergeQueue) Less(a, b int) bool {
	return q[a].rank < q[b].rank || q[a].rank == q[b].rank && q[a].start < q[b].start
}
func (q mergeQueue) Swap(a, b int) { q[a], q[b] = q[b], q[a] }
func (q *mergeQueue) Push(x any)   { *q = append(*q, x.(mergeCand)) }
func (q *mergeQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}
