package feedfarm

import (
	"bytes"
	"fmt"
)

// Text chooses the model the farm's prose is drawn from.
type Text int

const (
	// TextUniform draws every word uniformly from about 190 words. Every
	// article resembles every other, which is what earlier figures were
	// measured on; it stays the default so that they can be reproduced.
	TextUniform Text = iota
	// TextNews draws general words with a Zipf law from tens of thousands
	// of pseudo-words, and makes each item report one time-bound event
	// whose names and topic words its other reports repeat (see news.go).
	TextNews
)

// String names the model as the commands' -text flag spells it.
func (t Text) String() string {
	if t == TextNews {
		return "news"
	}
	return "uniform"
}

// ParseText reads a -text flag value: uniform or news.
func ParseText(s string) (Text, error) {
	switch s {
	case "uniform":
		return TextUniform, nil
	case "news":
		return TextNews, nil
	}
	return TextUniform, fmt.Errorf("text model %q: want uniform or news", s)
}

// prose writes the words of one item. It lives on the stack of the
// function writing the item and allocates nothing itself. With no event it
// is the uniform model, drawing exactly the numbers the farm always drew.
type prose struct {
	r    rng
	news bool  // the news model; false: uniform text
	lead bool  // writing the lead, where an event's terms are densest
	ev   event // the event a news item reports
}

// prose starts the words of item k of feed n for purpose salt.
func (f *Farm) prose(n, k int, salt uint64) prose {
	p := prose{r: rng{s: hash4(f.seed, uint64(n), uint64(k), salt)}}
	if f.opts.Text == TextNews {
		p.news, p.ev = true, f.eventOf(n, k)
	}
	return p
}

// appendWords appends n words separated by spaces, the first capitalised.
// The uniform model's loop is apart: it is what most benchmarks serve,
// and a call per word would cost it a tenth more.
func (p *prose) appendWords(s []byte, n, share int) []byte {
	if !p.news {
		for i := 0; i < n; i++ {
			w := words[p.r.intn(len(words))]
			if i == 0 {
				s = append(s, w[0]-('a'-'A'))
				s = append(s, w[1:]...)
				continue
			}
			s = append(s, ' ')
			s = append(s, w...)
		}
		return s
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			s = append(s, ' ')
		}
		s = p.appendNewsWord(s, i == 0, share)
	}
	return s
}

// writeWords writes n words, the first capitalised, as a heading or a
// list item.
func (p *prose) writeWords(buf *bytes.Buffer, n int) {
	buf.Grow(256)
	buf.Write(p.appendWords(buf.AvailableBuffer(), n, headingShare))
}

// appendTitle appends an item's title: 4 to 9 words (uniform) or 6 to 11
// with an event's terms at their densest (news).
func (p *prose) appendTitle(s []byte) []byte {
	if !p.news {
		return p.appendWords(s, p.r.between(4, 9), 0)
	}
	return p.appendWords(s, p.r.between(6, 11), titleShare)
}

// sentence returns one sentence.
func (p *prose) sentence() string {
	var b [512]byte
	return string(p.appendSentence(b[:0]))
}

// writeSentence writes a sentence straight into buf's free space, sparing
// the bodies, which are most of every feed, an allocation and a copy per
// sentence.
func (p *prose) writeSentence(buf *bytes.Buffer) {
	buf.Grow(512)
	buf.Write(p.appendSentence(buf.AvailableBuffer()))
}

func (p *prose) writeSentences(buf *bytes.Buffer, n int) {
	for i := 0; i < n; i++ {
		if i > 0 {
			buf.WriteByte(' ')
		}
		p.writeSentence(buf)
	}
}

// appendSentence appends 6 to 14 words (uniform) or 8 to 24 (news, where
// sentences are longer), capitalised, ending with a full stop.
func (p *prose) appendSentence(s []byte) []byte {
	if !p.news {
		return append(p.appendWords(s, p.r.between(6, 14), 0), '.')
	}
	share := bodyShare
	if p.lead {
		share = leadShare
	}
	return append(p.appendWords(s, p.r.between(8, 24), share), '.')
}
