package feedfarm

import (
	"math"
	"strconv"
	"time"
)

// The news text model (TextNews). It is a model, not real data: its
// purpose is that articles of one workspace resemble each other the way
// news does, so that grouping them into stories is neither trivial (the
// uniform text, where all articles look alike) nor impossible.
//
//   - General words follow a Zipf law of exponent 1 over newsVocab ranks:
//     the farm's function words first ("the" about 6 % of words, as in
//     English), then the rest of the uniform model's words, then
//     pseudo-words built from syllables, the frequent ones short.
//   - Every item reports one event. Time is cut into eventLife slots; an
//     item picks an event of its publication time's slot with a Zipf law
//     of exponent 1 over the slot's events, so a few events are reported
//     by many feeds and most by one or two, and reports of one event are
//     published within eventLife of each other.
//   - An event has 2 to 4 names (capitalised pseudo-words, one or two
//     words each), 4 to 8 topic words of middling frequency and a number.
//     Its reports draw those terms at a share of their words (densest in
//     the title and the lead) and everything else independently, so two
//     write-ups of one event share its terms but few word sequences.
//   - A few capitalised names that belong to no event are sprinkled in,
//     as people and places mentioned in passing are, drawn with a Zipf
//     law over passingVocab names.
const (
	newsVocab = 25000
	// passingVocab is how many names of no event there are; they are
	// drawn with a Zipf law too, so the well-known ones recur.
	passingVocab = 5000
	eventLife    = 6 * time.Hour
	// meanReports sets how many events a slot has: about one for every
	// meanReports items the farm publishes in a slot.
	meanReports = 3
	// Shares, per mille, of words that are one of the item's event terms.
	titleShare   = 450
	leadShare    = 200
	headingShare = 250
	bodyShare    = 120
	// passingNames is the share, per mille, of words that are a name of
	// no event.
	passingNames = 20
)

const saltEvent uint64 = 101

// newsHead are the most frequent general words, in rank order: function
// words by their usual English frequency, then the uniform model's other
// words.
var newsHead = func() []string {
	glue := []string{"the", "of", "and", "a", "to", "in", "is", "for", "on", "was", "with", "by", "from",
		"will", "about", "after", "could", "should", "before", "against", "during", "while"}
	head := append([]string(nil), glue...)
	isGlue := map[string]bool{}
	for _, w := range glue {
		isGlue[w] = true
	}
	for _, w := range words {
		if !isGlue[w] {
			head = append(head, w)
		}
	}
	return head
}()

// Pseudo-words are consonant-vowel syllables and an optional closing
// consonant, numbered so that every number has its own spelling.
const (
	consonants = "bcdfghjklmnprstvwz"
	vowels     = "aeiou"
	codas      = " nrltmk" // ' ' is no closing consonant
	syllables  = len(consonants) * len(vowels)
	tier1      = syllables * (len(codas) - 1)                   // one syllable and a closing consonant
	tier2      = syllables * syllables * len(codas)             // two syllables
	tier3      = syllables * syllables * syllables * len(codas) // three syllables: names
	spread     = 7919                                           // a prime dividing no tier: numbers are spread over spellings
)

func appendSyllable(s []byte, i int) []byte {
	return append(s, consonants[i%len(consonants)], vowels[i/len(consonants)])
}

func appendCoda(s []byte, c int) []byte {
	if codas[c] != ' ' {
		s = append(s, codas[c])
	}
	return s
}

// appendPseudo appends pseudo-word x: the first tier1 are three letters,
// the next tier2 four or five, the rest six or seven.
func appendPseudo(s []byte, x int) []byte {
	if x < tier1 {
		y := x * spread % tier1
		return appendCoda(appendSyllable(s, y/(len(codas)-1)), 1+y%(len(codas)-1))
	}
	x -= tier1
	if x < tier2 {
		y := x * spread % tier2
		s = appendSyllable(appendSyllable(s, y%syllables), y/syllables%syllables)
		return appendCoda(s, y/(syllables*syllables))
	}
	y := (x - tier2) % tier3 * spread % tier3
	s = appendSyllable(appendSyllable(appendSyllable(s, y%syllables), y/syllables%syllables), y/(syllables*syllables)%syllables)
	return appendCoda(s, y/(syllables*syllables*syllables))
}

// spelledLikeHead marks the pseudo-words spelled like a word of newsHead
// ("for" is f-o-r): each is replaced by a longer one, so that no two ranks
// share a spelling.
var spelledLikeHead = func() []uint64 {
	head := map[string]bool{}
	for _, w := range newsHead {
		head[w] = true
	}
	marks := make([]uint64, (newsVocab+63)/64)
	var b []byte
	for x := range newsVocab - len(newsHead) {
		if b = appendPseudo(b[:0], x); head[string(b)] {
			marks[x/64] |= 1 << (x % 64)
		}
	}
	return marks
}()

// appendGeneral appends the general word of rank i.
func appendGeneral(s []byte, i int) []byte {
	if i < len(newsHead) {
		return append(s, newsHead[i]...)
	}
	x := i - len(newsHead)
	if spelledLikeHead[x/64]&(1<<(x%64)) != 0 {
		x += tier1 + tier2 // a three-syllable word, which no head word is
	}
	return appendPseudo(s, x)
}

var (
	lnVocab   = math.Log(newsVocab + 1)
	lnPassing = math.Log(passingVocab + 1)
)

// zipf draws a rank in [0, n) with P(i) ≈ 1 / ((i + 1.5) ln(n + 1)): the
// inverse of the continuous law of exponent 1, with no table to keep.
func zipf(r *rng, lnN1 float64, n int) int {
	u := float64(r.next()>>11) / (1 << 53)
	return min(int(math.Exp(u*lnN1)-1), n-1)
}

// vocabCells is how finely vocabExp tabulates exp(u ln(newsVocab + 1)):
// within a cell the curve rises by 0.25 %, so a straight line between the
// cell's ends draws the same ranks as math.Exp would, at a fraction of
// its cost; the general words are nine in ten of a body.
const vocabCells = 4096

var vocabExp = func() []float64 {
	t := make([]float64, vocabCells+1)
	for i := range t {
		t[i] = math.Exp(float64(i) / vocabCells * lnVocab)
	}
	return t
}()

// zipfVocab is zipf(r, lnVocab, newsVocab) by the table.
func zipfVocab(r *rng) int {
	v := r.next()
	i := v >> (64 - 12) // vocabCells = 1 << 12
	frac := float64(v<<12>>11) / (1 << 53)
	x := vocabExp[i] + frac*(vocabExp[i+1]-vocabExp[i])
	return min(int(x-1), newsVocab-1)
}

// appendName appends the name seeded by h: one or two capitalised words.
func appendName(s []byte, h uint64) []byte {
	start := len(s)
	s = appendPseudo(s, int(h%uint64(tier3))+tier1+tier2)
	s[start] -= 'a' - 'A'
	if h>>62 != 0 { // three in four names have two words
		s = append(s, ' ')
		start = len(s)
		s = appendPseudo(s, int(h>>20%uint64(tier3))+tier1+tier2)
		s[start] -= 'a' - 'A'
	}
	return s
}

// event is what the reports of one event have in common.
type event struct {
	names  [4]uint64
	topics [8]int32
	nn, nt int
	number int
}

// eventsPerSlot is how many events share an eventLife slot: about one for
// every meanReports items the farm's feeds publish in a slot.
func eventsPerSlot(o Options) int {
	span := o.DateSpread + time.Duration(o.ItemsPerFeed)*330*time.Second // 330 s: the mean item step
	perSlot := float64(o.Feeds) * float64(o.ItemsPerFeed) * float64(eventLife) / float64(span)
	return max(1, int(math.Round(perSlot/meanReports)))
}

// eventKey names the event item k of feed n reports: its slot and its
// rank among the slot's events.
type eventKey struct{ slot, rank int64 }

func (f *Farm) eventKeyOf(n, k int) eventKey {
	r := rng{s: hash4(f.seed, uint64(n), uint64(k), saltEvent)}
	return eventKey{
		slot: f.published(n, k).Unix() / int64(eventLife/time.Second),
		rank: int64(zipf(&r, f.lnEvents, f.events)),
	}
}

// eventOf returns the event item k of feed n reports.
func (f *Farm) eventOf(n, k int) event {
	key := f.eventKeyOf(n, k)
	er := rng{s: hash4(f.seed, uint64(key.slot), uint64(key.rank), saltEvent)}
	var ev event
	ev.nn = er.between(2, len(ev.names))
	for i := range ev.nn {
		ev.names[i] = er.next()
	}
	// Topic words are of middling frequency: log-uniform over ranks from
	// 100 on, never the function words that every text has.
	lo := math.Log(100)
	ev.nt = er.between(4, len(ev.topics))
	for i := range ev.nt {
		u := float64(er.next()>>11) / (1 << 53)
		ev.topics[i] = int32(math.Exp(lo + u*(lnVocab-lo)))
	}
	ev.number = er.between(2, 9999)
	return ev
}

// appendNewsWord appends one word of the news model: one of the event's
// terms with probability share per mille, a name of no event with
// probability passingNames per mille, a general word otherwise.
func (p *prose) appendNewsWord(s []byte, first bool, share int) []byte {
	start := len(s)
	u := p.r.next()
	x := int(u % 1000)
	v := u >> 10
	switch {
	case x < share:
		ev := &p.ev
		switch v % 8 {
		case 0, 1, 2:
			s = appendName(s, ev.names[int(v>>3)%ev.nn])
		case 3:
			s = strconv.AppendInt(s, int64(ev.number), 10)
		default:
			s = appendGeneral(s, int(ev.topics[int(v>>3)%ev.nt]))
		}
	case x < share+passingNames:
		s = appendName(s, hash4(uint64(zipf(&p.r, lnPassing, passingVocab)), saltEvent, 0, 0))
	default:
		s = appendGeneral(s, zipfVocab(&p.r))
	}
	if first && s[start] >= 'a' && s[start] <= 'z' {
		s[start] -= 'a' - 'A'
	}
	return s
}
