package summary

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/analysis/stories"
)

// Defaults of Options.
const (
	DefaultMaxSentences = 3
	DefaultMaxChars     = 600
	// MaxConsidered is how many sentences, from the start, compete.
	MaxConsidered = 60
)

// Options bound a summary.
type Options struct {
	// MaxSentences is the most sentences taken (0: DefaultMaxSentences).
	MaxSentences int
	// MaxChars is the longest summary in characters (0:
	// DefaultMaxChars); a single sentence longer than that is cut at a
	// word and ends with "…".
	MaxChars int
}

// positionWeight is the share of a sentence's score that comes from its
// place in the article rather than from its centrality.
const positionWeight = 0.3

// Words a sentence needs to be a candidate, and the most it may have
// (longer ones are usually lists run together).
const (
	minSentenceWords = 5
	maxSentenceWords = 80
)

type sentence struct {
	text  string
	pos   int
	words []uint64 // distinct content-word hashes (sorted, but for short sentences)
	freq  []float64
	norm  float64
	score float64
}

// Summarize returns an extractive summary of an article's Markdown (or
// plain text), or "" when it has no prose.
func Summarize(markdown string, opts Options) string {
	if opts.MaxSentences <= 0 {
		opts.MaxSentences = DefaultMaxSentences
	}
	if opts.MaxChars <= 0 {
		opts.MaxChars = DefaultMaxChars
	}
	sc := summaryScratches.Get().(*summaryScratch)
	defer sc.release()
	cands := sc.cands[:0]
	first, pos := "", 0
	eachParagraph(markdown, func(p string) bool {
		if first == "" {
			first = p
		}
		splitSentences(p, func(s string) bool {
			if pos >= MaxConsidered {
				return false
			}
			if n := countFields(s); n >= minSentenceWords && n <= maxSentenceWords && complete(s) && !IsDateStamp(s) {
				cands = append(cands, sc.newSentence(s, pos))
			}
			pos++
			return true
		})
		// The rest of the text is not read at all.
		return pos < MaxConsidered
	})
	sc.cands = cands
	if first == "" {
		return ""
	}
	var chosen []*sentence
	if len(cands) > 2 && rank(cands) {
		chosen = pick(cands, opts.MaxSentences)
	}
	if len(chosen) == 0 {
		return fit(lead(first), opts)
	}
	texts := make([]string, len(chosen))
	for i, s := range chosen {
		texts[i] = s.text
	}
	return fit(texts, opts)
}

// pick takes the best-scoring sentences and returns them in article
// order, such that the first can open a summary: a sentence that depends
// on an earlier one opens only when it is the article's first. One that
// would open otherwise is left out and the next best taken instead; nil
// when no sentence can open.
func pick(cands []*sentence, k int) []*sentence {
	// The best are taken one by one, in the order a stable sort by score
	// (best first) would give them: a few of the sentences are ever taken,
	// and sorting them all was most of the cost of picking.
	var room [MaxConsidered]bool
	taken := room[:0]
	if len(cands) > len(room) {
		taken = make([]bool, 0, len(cands))
	}
	taken = taken[:len(cands)]
	left := len(cands)
	best := func() *sentence {
		b := -1
		for i, s := range cands {
			if !taken[i] && (b < 0 || cmp.Compare(s.score, cands[b].score) > 0) {
				b = i
			}
		}
		taken[b] = true
		left--
		return cands[b]
	}
	var chosen []*sentence
	for {
		for len(chosen) < k && left > 0 {
			chosen = append(chosen, best())
		}
		if len(chosen) == 0 {
			return nil
		}
		slices.SortFunc(chosen, func(a, b *sentence) int { return cmp.Compare(a.pos, b.pos) })
		// Whether a sentence leans on an earlier one is asked only of the
		// one that would open the summary.
		if first := chosen[0]; first.pos == 0 || !DependsOnEarlier(first.text) {
			return chosen
		}
		chosen = chosen[1:]
	}
}

// lead is the summary when centrality cannot choose: the sentences of the
// first paragraph, date stamps left out.
func lead(p string) []string {
	var out []string
	for _, s := range sentences(p) {
		if !IsDateStamp(s) {
			out = append(out, s)
		}
	}
	return out
}

// complete reports whether a sentence ends as prose does: with a full
// stop, question or exclamation mark, or one of them inside closing
// quotes. Datelines, captions and cut-off teasers do not.
func complete(s string) bool {
	if s != "" {
		// Most sentences end with their mark, which the quotes trimmed
		// below do not hide.
		switch s[len(s)-1] {
		case '.', '!', '?':
			return true
		}
	}
	s = strings.TrimRight(s, "\"')]”’")
	return strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?")
}

// summaryScratch holds a summary's candidate sentences and their word
// vectors, pooled: made one by one, they were most of a summary's
// allocations. Nothing of it outlives Summarize.
type summaryScratch struct {
	sents []sentence // room for MaxConsidered, never grown: cands point into it
	cands []*sentence
	words []uint64
	freq  []float64
}

var summaryScratches = sync.Pool{New: func() any {
	return &summaryScratch{sents: make([]sentence, 0, MaxConsidered)}
}}

// release puts the scratch back in the pool, without the text it refers
// to.
func (sc *summaryScratch) release() {
	clear(sc.sents)
	clear(sc.cands)
	sc.sents, sc.cands, sc.words, sc.freq = sc.sents[:0], sc.cands[:0], sc.words[:0], sc.freq[:0]
	summaryScratches.Put(sc)
}

// newSentence is newSentence (the function) in the scratch's slices,
// but for the order of a short sentence's words: they are kept in the
// order first met, not sorted. Only the dot products read a sentence's
// words, through a table of them, and their sums are integers, exact in
// whatever order they are added; sorting a dozen random hashes, each
// comparison a coin toss for the processor, cost more than finding the
// repeated ones among them.
func (sc *summaryScratch) newSentence(text string, pos int) *sentence {
	start := len(sc.words)
	sc.words = stories.AppendContentWords(sc.words, text)
	ws := sc.words[start:]
	sc.sents = append(sc.sents, sentence{text: text, pos: pos})
	s := &sc.sents[len(sc.sents)-1]
	fstart := len(sc.freq)
	var k int
	var freq []float64
	var squares float64
	if len(ws) <= shortSentenceWords {
		k, freq, squares = distinct(ws, sc.freq)
	} else {
		slices.Sort(ws)
		k, freq, squares = runs(ws, sc.freq)
	}
	sc.freq = freq
	s.norm = math.Sqrt(squares)
	sc.words = sc.words[:start+k]
	s.words = ws[:k:k]
	s.freq = sc.freq[fstart:len(sc.freq):len(sc.freq)]
	return s
}

// shortSentenceWords is the most content words for which newSentence
// finds the repeated ones by comparing each with those before it rather
// than by sorting them.
const shortSentenceWords = 24

// distinct is runs for ws in any order: each distinct hash moves to the
// front of ws once, in the order first met, and its count is appended to
// freq.
func distinct(ws []uint64, freq []float64) (int, []float64, float64) {
	base, k := len(freq), 0
	for _, w := range ws {
		j := 0
		for j < k && ws[j] != w {
			j++
		}
		if j < k {
			freq[base+j]++
			continue
		}
		ws[k] = w
		k++
		freq = append(freq, 1)
	}
	squares := 0.0
	for _, f := range freq[base:] {
		squares += f * f
	}
	return k, freq, squares
}

// runs moves each distinct hash of the sorted ws, once, to the front of
// ws and appends to freq how often it occurs. It returns how many are
// distinct, freq, and the sum of the squared counts (the squared norm of
// the word vector; a sum of integers, exact in float64).
func runs(ws []uint64, freq []float64) (int, []float64, float64) {
	k, squares := 0, 0.0
	for i := 0; i < len(ws); {
		j := i
		for j < len(ws) && ws[j] == ws[i] {
			j++
		}
		ws[k] = ws[i]
		k++
		freq = append(freq, float64(j-i))
		squares += float64((j - i) * (j - i))
		i = j
	}
	return k, freq, squares
}

// countFields is len(strings.Fields(s)) without the slice. A word starts
// where a rune that is no space follows one that is (or the start),
// counted without a branch on it, which the processor could not predict.
func countFields(s string) int {
	n, prev := 0, uint8(1)
	for i := 0; i < len(s); {
		var space uint8
		if c := s[i]; c < utf8.RuneSelf {
			space = asciiSpace[c]
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				space = 1
			}
			i += size
		}
		n += int(prev &^ space)
		prev = space
	}
	return n
}

// asciiSpace is 1 for the ASCII bytes unicode.IsSpace reports.
var asciiSpace = [utf8.RuneSelf]uint8{'\t': 1, '\n': 1, '\v': 1, '\f': 1, '\r': 1, ' ': 1}

// rank scores the sentences by centrality and position, and reports
// whether centrality told them apart at all.
func rank(ss []*sentence) bool {
	sc := rankScratches.Get().(*rankScratch)
	defer rankScratches.Put(sc)
	dots := dotProducts(ss, sc)
	n := len(ss)
	cent := resized(sc.cent, n)
	sc.cent = cent
	clear(cent)
	for i, a := range ss {
		for j := i + 1; j < n; j++ {
			// cosine, from the dot product worked out already.
			c := 0.0
			if b := ss[j]; a.norm != 0 && b.norm != 0 {
				c = dots[i*n+j] / (a.norm * b.norm)
			}
			cent[i] += c
			cent[j] += c
		}
	}
	top := slices.Max(cent)
	if top == 0 {
		return false
	}
	for i, s := range ss {
		s.score = (1-positionWeight)*cent[i]/top + positionWeight/(1+float64(s.pos)/3)
	}
	return true
}

// rankScratch is what rank works in, pooled: the dot products alone are
// tens of kilobytes for an article's MaxConsidered sentences, made anew
// and cleared for each article.
type rankScratch struct {
	cent, dots  []float64
	occ         []occurrence
	table, next []int32
	chains      []chain
}

// chain is a word's occurrences, from head to tail through
// rankScratch.next.
type chain struct {
	word       uint64
	head, tail int32
}

var rankScratches = sync.Pool{New: func() any { return new(rankScratch) }}

// occurrence is a word of a sentence, with its frequency there.
type occurrence struct {
	word uint64
	s    int32
	freq float64
}

// resized is s with n elements, reusing its array when it is large
// enough; the elements hold whatever they held.
func resized[T any](s []T, n int) []T {
	return slices.Grow(s[:0], n)[:n]
}

// dotProducts is the dot product of every two sentences' word vectors,
// that of i and j (i < j) at i*len(ss)+j, in sc's scratch. Merging the
// words of every pair was most of a summary's cost, and most pairs share
// no word: the products are found through the sentences of each word
// instead, the words grouped by a hash table rather than sorted. A
// word's frequencies are counts, so every product and every sum is an
// integer far below 2^53, exact in a float64 in whatever order it is
// added: the sums are those of cosine's merge, in word order, to the bit.
func dotProducts(ss []*sentence, sc *rankScratch) []float64 {
	total := 0
	for _, s := range ss {
		total += len(s.words)
	}
	occ := slices.Grow(sc.occ[:0], total)
	for i, s := range ss {
		for k, w := range s.words {
			occ = append(occ, occurrence{w, int32(i), s.freq[k]})
		}
	}
	sc.occ = occ
	// Each word's occurrences chained in the order they were appended,
	// that of their sentences (a sentence holds a word once), through a
	// table of the words open-addressed by their hashes' high bits.
	size := 16
	for size < 2*total {
		size *= 2
	}
	shift := 64 - uint(bits.Len(uint(size-1)))
	table := resized(sc.table, size)
	clear(table)
	chains := sc.chains[:0]
	next := resized(sc.next, len(occ))
	for k, o := range occ {
		next[k] = -1
		for i := (o.word * 0x9E3779B97F4A7C15) >> shift; ; i = (i + 1) & uint64(size-1) {
			c := table[i]
			if c == 0 {
				chains = append(chains, chain{o.word, int32(k), int32(k)})
				table[i] = int32(len(chains))
				break
			}
			if ch := &chains[c-1]; ch.word == o.word {
				next[ch.tail] = int32(k)
				ch.tail = int32(k)
				break
			}
		}
	}
	sc.table, sc.chains, sc.next = table, chains, next
	n := len(ss)
	dots := resized(sc.dots, n*n)
	sc.dots = dots
	clear(dots)
	for _, ch := range chains {
		for x := ch.head; x >= 0; x = next[x] {
			a := &occ[x]
			for y := next[x]; y >= 0; y = next[y] {
				b := &occ[y]
				dots[int(a.s)*n+int(b.s)] += a.freq * b.freq
			}
		}
	}
	return dots
}

// fit joins sentences up to the sentence and character budget; the first
// is always kept, cut at a word when it alone is too long.
func fit(ss []string, opts Options) string {
	var b strings.Builder
	for i, s := range ss {
		if i == opts.MaxSentences {
			break
		}
		if i > 0 {
			if b.Len()+1+len(s) > opts.MaxChars {
				break
			}
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	out := b.String()
	if len(out) > opts.MaxChars {
		cut := strings.LastIndexByte(out[:opts.MaxChars-len("…")+1], ' ')
		if cut <= 0 {
			cut = opts.MaxChars - len("…")
			for cut > 0 && !utf8RuneStart(out[cut]) {
				cut--
			}
		}
		out = strings.TrimRight(out[:cut], " ,;:") + "…"
	}
	return out
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
