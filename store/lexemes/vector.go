package lexemes

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Weight ranks where in a document a word stands: PostgreSQL's ts_rank
// counts an A match above a B, a B above a C.
type Weight byte

// The weights of a document's parts.
const (
	A Weight = 3 // the title
	B Weight = 2 // the summary
	C Weight = 1 // the body
)

func (w Weight) letter() byte { return "DCBA"[w] }

// Limits of a document's vector: the characters of each part indexed
// (what the index kept when PostgreSQL computed it), and PostgreSQL's
// own limits of a tsvector, which it would refuse or cut.
const (
	TitleChars   = 2000
	SummaryChars = 20000
	BodyChars    = 200000
	// MaxPosition is the highest position a tsvector holds: later words
	// all stand at it.
	MaxPosition = 1<<14 - 1
	// MaxPositions is the most positions kept of one lexeme.
	MaxPositions = 256
	// maxLexemeBytes is the longest lexeme a tsvector takes; longer
	// words take their position and are not indexed.
	maxLexemeBytes = 1<<11 - 2
	// maxVectorBytes bounds a vector's lexemes and positions, under
	// PostgreSQL's 1 MB.
	maxVectorBytes = 1<<20 - 1<<12
)

// Part is one part of a document: its text and weight, and how many of
// its characters are indexed.
type Part struct {
	Text     string
	Weight   Weight
	MaxChars int
}

// Article is the vector of an article, as a tsvector literal: its title
// (A), summary (B) and body (bodyWeight: C, or B when the body is the
// feed's summary).
func Article(title, summary, body string, bodyWeight Weight) string {
	return (*Lexicon)(nil).Article(title, summary, body, bodyWeight)
}

// Document is the tsvector literal of parts read one after the other:
// each word's lexeme with its positions (counted from 1 over all parts,
// stop words included) and the weight of its part. A word past
// MaxPosition stands at MaxPosition; a lexeme keeps its first
// MaxPositions positions.
func Document(parts ...Part) string {
	return (*Lexicon)(nil).Document(parts...)
}

// cut is the first n characters of s.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// document gathers the lexemes of a document's words. Documents are
// pooled: their maps and slices are most of the cost of a short
// article's vector when made anew for each.
type document struct {
	lexicon *Lexicon
	pos     int
	index   map[string]int32 // lexeme → entry
	entries []entry
	// words are the distinct words met as written, with their entry (-1:
	// a stop word, or a word not indexed), found through table by a hash
	// taken as the text is scanned: an article repeats most of its words,
	// and one look-up then does for folding, stemming and finding the
	// entry, without hashing the word again.
	words       []word
	table       []int32 // open addressing: 1 + the word's index, 0 for a free slot
	occurrences []occurrence
	size        int // bytes of the lexemes and positions so far

	// Scratch of positions and binary.
	grouped []uint16
	at      []int32
	order   []uint64
	folded  []byte
}

// documents are documents released, for the next vector to reuse.
var documents = sync.Pool{New: func() any { return &document{index: map[string]int32{}} }}

// pooledWords bounds the distinct words of a document put back in the
// pool: clearing its map costs as much as the map holds, and a rare huge
// document should not make every later one pay for it.
const pooledWords = 1 << 14

type entry struct {
	lexeme string
	n      int    // positions kept
	last   uint16 // the last of them
}

type word struct {
	hash  uint64
	text  string
	entry int32
}

// occurrence is a position kept of an entry's lexeme, as PostgreSQL's
// WordEntryPos: the weight in the top two bits, the position in the
// others. They are kept in one list, in the order of the text, and
// grouped by entry only when the vector is written.
type occurrence struct {
	entry int32
	pos   uint16
}

// reset readies a document for a text of size bytes.
func (d *document) reset(l *Lexicon, size int) {
	d.lexicon, d.pos, d.size = l, 0, 0
	// Sized for prose (a word in 6 bytes, a different one in 12 of a
	// short text, fewer in a long one), so that the table is not grown
	// word by word.
	slots := 16
	for slots < 2*min(size/12, 512) {
		slots *= 2
	}
	d.table = slices.Grow(d.table[:0], slots)[:slots]
	clear(d.table)
	d.occurrences = slices.Grow(d.occurrences[:0], size/6)
}

// release puts the document back in the pool, without the text and
// lexemes it refers to.
func (d *document) release() {
	if len(d.words) > pooledWords {
		return
	}
	clear(d.words)
	d.words = d.words[:0]
	clear(d.entries)
	d.entries = d.entries[:0]
	clear(d.index)
	d.lexicon = nil
	documents.Put(d)
}

// add reads the words of text, split as Each splits them.
func (d *document) add(text string, w Weight) {
	eachHashed(text, func(start, end int, h uint64) { d.addWord(text[start:end], h, w) })
}

// addWord counts a word at the next position.
func (d *document) addWord(text string, h uint64, w Weight) {
	d.pos = min(d.pos+1, MaxPosition)
	i := d.entryOfWord(text, h)
	if i < 0 {
		return
	}
	e := &d.entries[i]
	// At MaxPosition the first word there keeps it: parts come in
	// order of weight, so its weight is the highest.
	if e.n == MaxPositions || e.n > 0 && int(e.last&MaxPosition) == d.pos {
		return
	}
	e.last = uint16(w)<<14 | uint16(d.pos)
	e.n++
	d.occurrences = append(d.occurrences, occurrence{i, e.last})
	d.size += 2
}

// entryOfWord is the entry of a word as written, whose hash is h.
func (d *document) entryOfWord(text string, h uint64) int32 {
	mask := uint64(len(d.table) - 1)
	for k := (h ^ h>>32) & mask; ; k = (k + 1) & mask {
		slot := d.table[k]
		if slot == 0 {
			i := d.entryOf(d.lexemeOfWord(text))
			d.words = append(d.words, word{h, text, i})
			d.table[k] = int32(len(d.words))
			if 2*len(d.words) > len(d.table) {
				d.grow()
			}
			return i
		}
		if wd := &d.words[slot-1]; wd.hash == h && wd.text == text {
			return wd.entry
		}
	}
}

// lexemeOfWord is the lexeme of a word as written. An ASCII word is folded
// (as Fold folds it) in the document's scratch, so that only a word the
// lexicon has not met is copied to a string, and the lexicon keeps a
// copy, not a word cut from the article's text.
func (d *document) lexemeOfWord(text string) string {
	if d.lexicon == nil || !isASCII(text) {
		// Without a lexicon Fold's string is used once: a word already
		// in lower case is not copied.
		return d.lexicon.lexeme(Fold(text))
	}
	d.folded = append(d.folded[:0], text...)
	for i, c := range d.folded {
		if 'A' <= c && c <= 'Z' {
			d.folded[i] = c + 'a' - 'A'
		}
	}
	return d.lexicon.lexemeBytes(d.folded)
}

// grow doubles the table of words.
func (d *document) grow() {
	n := 2 * len(d.table)
	d.table = slices.Grow(d.table[:0], n)[:n]
	clear(d.table)
	mask := uint64(n - 1)
	for i, wd := range d.words {
		k := (wd.hash ^ wd.hash>>32) & mask
		for d.table[k] != 0 {
			k = (k + 1) & mask
		}
		d.table[k] = int32(i + 1)
	}
}

// entryOf is the entry of a lexeme, added if new; -1 for no lexeme (a
// stop word), one too long, or one past the vector's size.
func (d *document) entryOf(lex string) int32 {
	if lex == "" || len(lex) > maxLexemeBytes {
		return -1
	}
	if i, ok := d.index[lex]; ok {
		return i
	}
	if d.size+len(lex)+4 > maxVectorBytes {
		return -1
	}
	d.size += len(lex) + 2
	i := int32(len(d.entries))
	d.index[lex] = i
	d.entries = append(d.entries, entry{lexeme: lex})
	return i
}

// lexemeOf is the lexeme of a folded word, "" for a stop word.
func lexemeOf(folded string) string {
	if IsStopWord(folded) {
		return ""
	}
	return English(folded)
}

// positions groups the positions kept by entry, keeping their order:
// entry i's are pos[start[i]:start[i]+entries[i].n]. Both are the
// document's scratch.
func (d *document) positions() (pos []uint16, start []int32) {
	// Each entry's end, counted down as its positions are placed from the
	// last: then its start.
	at := slices.Grow(d.at[:0], len(d.entries))[:len(d.entries)]
	var end int32
	for i, e := range d.entries {
		end += int32(e.n)
		at[i] = end
	}
	pos = slices.Grow(d.grouped[:0], len(d.occurrences))[:len(d.occurrences)]
	for k := len(d.occurrences) - 1; k >= 0; k-- {
		o := d.occurrences[k]
		at[o.entry]--
		pos[at[o.entry]] = o.pos
	}
	d.at, d.grouped = at, pos
	return pos, at
}

func (d *document) literal() string {
	pos, start := d.positions()
	var b strings.Builder
	b.Grow(d.size + 8*len(d.entries))
	for i, e := range d.entries {
		if i > 0 {
			b.WriteByte(' ')
		}
		writeQuoted(&b, e.lexeme)
		for j, p := range pos[start[i] : int(start[i])+e.n] {
			if j == 0 {
				b.WriteByte(':')
			} else {
				b.WriteByte(',')
			}
			var num [8]byte
			b.Write(strconv.AppendInt(num[:0], int64(p&MaxPosition), 10))
			if w := Weight(p >> 14); w != 0 {
				b.WriteByte(w.letter())
			}
		}
	}
	return b.String()
}

// prefixOf is the first eight bytes of a lexeme as a big-endian number,
// zero-padded: two lexemes whose numbers differ are in the order of their
// numbers, and only equal numbers need the lexemes compared.
func prefixOf(lex string) uint64 {
	var b [8]byte
	copy(b[:], lex)
	return binary.BigEndian.Uint64(b[:])
}

// resized is s with n elements, reusing its array when it is large
// enough; the elements hold whatever they held.
func resized[T any](s []T, n int) []T {
	return slices.Grow(s[:0], n)[:n]
}

// binary is the document as tsvectorrecv reads it: the number of
// lexemes (int32), then each lexeme, NUL-terminated, with the number of
// its positions (uint16) and the positions (uint16 each, the weight in
// the top two bits), all big-endian. The lexemes go in the server's order
// (bytewise, a prefix first: Go's order of strings), which spares it a
// sort; the positions of each are increasing, as the server requires.
func (d *document) binary() []byte {
	pos, start := d.positions()
	// Sorted as integers, each lexeme's prefix in the high bits and its
	// entry in the low ones, which a comparison function sorted at
	// several times the cost; lexemes whose prefixes differ only in the
	// low bits (or not at all) are put in order after.
	low := uint(bits.Len(uint(len(d.entries))))
	mask := uint64(1)<<low - 1
	order := resized(d.order, len(d.entries))
	d.order = order
	for i, e := range d.entries {
		order[i] = prefixOf(e.lexeme)&^mask | uint64(i)
	}
	slices.Sort(order)
	for lo := 0; lo < len(order); {
		hi := lo + 1
		for hi < len(order) && order[hi]&^mask == order[lo]&^mask {
			hi++
		}
		if hi-lo > 1 {
			slices.SortFunc(order[lo:hi], func(a, b uint64) int {
				return strings.Compare(d.entries[a&mask].lexeme, d.entries[b&mask].lexeme)
			})
		}
		lo = hi
	}
	out := make([]byte, 0, 4+d.size+2*len(d.entries))
	out = binary.BigEndian.AppendUint32(out, uint32(len(d.entries)))
	for _, k := range order {
		i := k & mask
		e := d.entries[i]
		out = append(out, e.lexeme...)
		out = append(out, 0)
		out = binary.BigEndian.AppendUint16(out, uint16(e.n))
		for _, p := range pos[start[i] : int(start[i])+e.n] {
			out = binary.BigEndian.AppendUint16(out, p)
		}
	}
	return out
}

// writeQuoted writes a lexeme as tsvector and tsquery literals quote it.
// A lexeme holds letters and digits only; the escapes are a safeguard.
func writeQuoted(b *strings.Builder, lex string) {
	b.WriteByte('\'')
	for i := 0; i < len(lex); i++ {
		if c := lex[i]; c == '\'' || c == '\\' {
			b.WriteByte(c)
		}
		b.WriteByte(lex[i])
	}
	b.WriteByte('\'')
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
