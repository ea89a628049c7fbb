package lexemes

import (
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
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

// document gathers the lexemes of a document's words.
type document struct {
	lexicon *Lexicon
	pos     int
	index   map[string]int // lexeme → entry
	entries []entry
	// words caches the entry of each word met as it was written (-1: a
	// stop word, or a word not indexed): an article repeats most of its
	// words, and one look-up then does for folding, stemming and finding
	// the entry.
	words       map[string]int
	occurrences []occurrence
	size        int // bytes of the lexemes and positions so far
}

type entry struct {
	lexeme string
	n      int    // positions kept
	last   uint16 // the last of them
}

// occurrence is a position kept of an entry's lexeme, as PostgreSQL's
// WordEntryPos: the weight in the top two bits, the position in the
// others. They are kept in one list, in the order of the text, and
// grouped by entry only when the literal is written.
type occurrence struct {
	entry int32
	pos   uint16
}

func (d *document) add(text string, w Weight) {
	Each(text, func(start, end int) {
		d.pos = min(d.pos+1, MaxPosition)
		word := text[start:end]
		i, ok := d.words[word]
		if !ok {
			i = d.entryOf(d.lexicon.lexeme(Fold(word)))
			d.words[word] = i
		}
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
		d.occurrences = append(d.occurrences, occurrence{int32(i), e.last})
		d.size += 2
	})
}

// entryOf is the entry of a lexeme, added if new; -1 for no lexeme (a
// stop word), one too long, or one past the vector's size.
func (d *document) entryOf(lex string) int {
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
	d.index[lex] = len(d.entries)
	d.entries = append(d.entries, entry{lexeme: lex})
	return len(d.entries) - 1
}

// lexemeOf is the lexeme of a folded word, "" for a stop word.
func lexemeOf(folded string) string {
	if IsStopWord(folded) {
		return ""
	}
	return English(folded)
}

// positions groups the positions kept by entry, keeping their order:
// entry i's are pos[start[i]:start[i+1]].
func (d *document) positions() (pos []uint16, start []int) {
	start = make([]int, len(d.entries)+1)
	for i, e := range d.entries {
		start[i+1] = start[i] + e.n
	}
	pos = make([]uint16, len(d.occurrences))
	next := append([]int(nil), start[:len(d.entries)]...)
	for _, o := range d.occurrences {
		pos[next[o.entry]] = o.pos
		next[o.entry]++
	}
	return pos, start
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
		for j, p := range pos[start[i+1]-e.n : start[i+1]] {
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

// binary is the document as tsvectorrecv reads it: the number of
// lexemes (int32), then each lexeme, NUL-terminated, with the number of
// its positions (uint16) and the positions (uint16 each, the weight in
// the top two bits), all big-endian. The lexemes go in the server's order
// (bytewise, a prefix first: Go's order of strings), which spares it a
// sort; the positions of each are increasing, as the server requires.
func (d *document) binary() []byte {
	pos, start := d.positions()
	order := make([]int, len(d.entries))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(d.entries[a].lexeme, d.entries[b].lexeme) })
	out := make([]byte, 0, 4+d.size+2*len(d.entries))
	out = binary.BigEndian.AppendUint32(out, uint32(len(d.entries)))
	for _, i := range order {
		e := d.entries[i]
		out = append(out, e.lexeme...)
		out = append(out, 0)
		out = binary.BigEndian.AppendUint16(out, uint16(e.n))
		for _, p := range pos[start[i]:start[i+1]] {
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
