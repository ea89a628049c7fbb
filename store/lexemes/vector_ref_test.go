package lexemes

import (
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
)

// The reference implementation: the vector as it was first written,
// kept to show that the faster one gives the same bytes.

type refDocument struct {
	lexicon     *Lexicon
	pos         int
	index       map[string]int
	entries     []entry
	words       map[string]int
	occurrences []occurrence
	size        int
}

func refRead(l *Lexicon, parts []Part) *refDocument {
	texts := make([]string, len(parts))
	size := 0
	for i, p := range parts {
		texts[i] = cut(p.Text, p.MaxChars)
		size += len(texts[i])
	}
	distinct := min(size/12, 512)
	d := refDocument{lexicon: l, index: make(map[string]int, distinct), words: make(map[string]int, distinct),
		entries: make([]entry, 0, distinct), occurrences: make([]occurrence, 0, size/6)}
	for i, p := range parts {
		d.add(texts[i], p.Weight)
	}
	return &d
}

func (d *refDocument) add(text string, w Weight) {
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
		if e.n == MaxPositions || e.n > 0 && int(e.last&MaxPosition) == d.pos {
			return
		}
		e.last = uint16(w)<<14 | uint16(d.pos)
		e.n++
		d.occurrences = append(d.occurrences, occurrence{int32(i), e.last})
		d.size += 2
	})
}

func (d *refDocument) entryOf(lex string) int {
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

func (d *refDocument) positions() (pos []uint16, start []int) {
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

func (d *refDocument) literal() string {
	pos, start := d.positions()
	var b strings.Builder
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
			b.WriteString(strconv.Itoa(int(p & MaxPosition)))
			if w := Weight(p >> 14); w != 0 {
				b.WriteByte(w.letter())
			}
		}
	}
	return b.String()
}

func (d *refDocument) binary() []byte {
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
