package stories

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
)

// Profile weights. An article's profile is the set of its features with
// a weight each: how often the feature occurs, counted more where the
// article says what it is about (title, lead) and for the words that tell
// one event from another of its kind (names, numbers). The rarity of a
// feature in the workspace (its IDF) is applied later, at comparison
// time, from the workspace's current document frequencies.
const (
	// TitleWeight counts a word of the title this many times: the
	// headline names the event.
	TitleWeight = 3
	// LeadWeight counts a word of the lead (the first LeadWords words of
	// the body) this many times.
	LeadWeight = 2
	// NameWeight multiplies the count of a word that is part of a name (a
	// run of capitalised words, see names): people, places, organisations
	// are what two events of one kind do not share.
	NameWeight = 2
	// NumberWeight multiplies the count of a word holding a digit.
	NumberWeight = 1.5
	// MaxProfileFeatures bounds a profile: the features with the highest
	// weights are kept. It bounds what is stored and compared per article,
	// whatever the length of the text.
	MaxProfileFeatures = 96
)

// Feature kinds, the high bits of a feature's hash: a word (stemmed) and
// a name (the words of a capitalised run joined) never collide.
const (
	kindWord = 1
	kindName = 2
)

// Feature is one feature of a profile: the hash of a stemmed content word
// or of a name, and its weighted frequency in the article (before IDF).
type Feature struct {
	Term   uint32
	Weight float32
	// Flags say what kind of evidence the feature is: FlagName, FlagNumber.
	Flags uint8
}

// Feature flags: the event-specific features, which two reports of one
// event share and two events of one kind do not.
const (
	// FlagName marks a word the article uses as (part of) a name.
	FlagName = 1 << iota
	// FlagNumber marks a word holding a digit.
	FlagNumber
)

// Profile is what grouping compares of an article: its features sorted by
// Term. It depends on nothing but the article's title and body.
type Profile struct {
	Features []Feature
	// Words holds, beside each feature, the word or name it stands for as
	// first written (case-folded): what a Reason shows of the shared
	// features. It is not stored; a profile read back has none.
	Words []string
}

// Empty reports whether the profile has no features (an article without
// content words).
func (p *Profile) Empty() bool { return len(p.Features) == 0 }

// NewProfile computes the profile of an article from its title and its
// body (Markdown or plain text), without site furniture (StripFurniture).
func NewProfile(title, body string) Profile {
	return newProfile(title, body, nil)
}

// featureSum is one feature while a profile is counted: its weighted
// frequency, flags, and the word it was first written as.
type featureSum struct {
	term  uint32
	flags uint8
	count float64
	word  string
}

// profileSums accumulates a profile's features in the order first met;
// one table finds a term's entry (four maps per article were a fifth of a
// profile's cost, and one map still a tenth).
type profileSums struct {
	// slots is an open-addressing table of the entries, by term: index+1
	// into sums (0 an empty slot), a power of two in size and at most half
	// full. Terms are hashes, so their low bits place them.
	slots []int32
	sums  []featureSum
}

// reset empties ps for about n terms, reusing its table and entries.
func (ps *profileSums) reset(n int) {
	size := 64
	for size < 2*n {
		size *= 2
	}
	ps.slots = resized(ps.slots, size)
	clear(ps.slots)
	clear(ps.sums)
	ps.sums = ps.sums[:0]
}

// indexOf is the entry of term h in sums, added if new.
func (ps *profileSums) indexOf(h uint32) int32 {
	mask := uint32(len(ps.slots) - 1)
	i := h & mask
	for ; ps.slots[i] != 0; i = (i + 1) & mask {
		if k := ps.slots[i] - 1; ps.sums[k].term == h {
			return k
		}
	}
	k := int32(len(ps.sums))
	ps.sums = append(ps.sums, featureSum{term: h})
	ps.slots[i] = k + 1
	if 2*len(ps.sums) > len(ps.slots) {
		ps.grow()
	}
	return k
}

// grow doubles the table of slots.
func (ps *profileSums) grow() {
	ps.slots = make([]int32, 2*len(ps.slots))
	mask := uint32(len(ps.slots) - 1)
	for k, f := range ps.sums {
		i := f.term & mask
		for ps.slots[i] != 0 {
			i = (i + 1) & mask
		}
		ps.slots[i] = int32(k) + 1
	}
}

func newProfile(title, body string, stems *Stems) Profile {
	sc := profileScratches.Get().(*profileScratch)
	defer sc.release()
	// Sized for prose (a word in 6 bytes, a different one in 20), so that
	// neither is grown word by word.
	tz := &sc.tz
	tz.reset((len(title)+len(body))/20 + 8)
	titleToks := tz.appendTokens(sc.titleToks[:0], title)
	bodyToks := slices.Grow(sc.bodyToks[:0], len(body)/6+1)
	sc.lines = appendStripped(sc.lines[:0], body)
	for _, line := range sc.lines {
		bodyToks = tz.appendTokens(bodyToks, line)
	}
	sc.titleToks, sc.bodyToks = titleToks, bodyToks
	ps := &sc.ps
	ps.reset(len(tz.words))
	ps.sums = slices.Grow(ps.sums, len(tz.words))
	// What each distinct word (token.id) is: a stop word or not, and the
	// term it counts as (0: left out). A word holds a digit exactly when
	// its tokens do. The stems are looked up together, under one lock.
	stop := resized(sc.stop, len(tz.words))
	stemmed := sc.stemmed[:0]
	stemmedIDs := sc.stemmedIDs[:0]
	for id, w := range tz.words {
		stop[id] = isStopWordHashed(stopWordSlots, w, tz.hashes[id])
		if !stop[id] && (len(w) >= 2 || strings.ContainsAny(w, "0123456789")) {
			stemmed = append(stemmed, w)
			stemmedIDs = append(stemmedIDs, int32(id))
		}
	}
	terms := resized(sc.terms, len(tz.words))
	clear(terms)
	stemTerms := resized(sc.stemTerms, len(stemmed))
	sc.stemTerms = stemTerms
	stems.termsOf(stemmed, stemTerms)
	for i, h := range stemTerms {
		terms[stemmedIDs[i]] = h
	}
	// The entry of each word's term in ps, once found (-1 before): a
	// word's term is the same at each of its tokens, and the table need
	// not be asked again for it.
	featOf := resized(sc.featOf, len(tz.words))
	for i := range featOf {
		featOf[i] = -1
	}
	sc.stop, sc.stemmed, sc.stemmedIDs, sc.terms, sc.featOf = stop, stemmed, stemmedIDs, terms, featOf
	addWords := func(toks []token, inName []bool, base func(i int) float64) {
		for i, t := range toks {
			h := terms[t.id]
			if h == 0 {
				continue
			}
			w := base(i)
			k := featOf[t.id]
			if k < 0 {
				k = ps.indexOf(h)
				featOf[t.id] = k
			}
			f := &ps.sums[k]
			if t.digit {
				w *= NumberWeight
				f.flags |= FlagNumber
			} else if inName != nil && inName[i] {
				w *= NameWeight
				f.flags |= FlagName
			}
			f.count += w
			if f.word == "" {
				f.word = tz.words[t.id]
			}
		}
	}
	addWords(titleToks, nil, func(int) float64 { return TitleWeight })
	inName := resized(sc.inName, len(bodyToks))
	clear(inName)
	sc.inName = inName
	sc.midCapital = resized(sc.midCapital, len(stop))
	sc.names = names(sc.names[:0], bodyToks, tz.words, stop, sc.midCapital)
	for _, n := range sc.names {
		for i := n.from; i < n.to; i++ {
			inName[i] = true
		}
		if n.to-n.from >= 2 {
			var sb strings.Builder
			for i := n.from; i < n.to; i++ {
				if stop[bodyToks[i].id] {
					continue
				}
				if sb.Len() > 0 {
					sb.WriteByte(' ')
				}
				sb.WriteString(tz.words[bodyToks[i].id])
			}
			w := 1.0
			if n.from < LeadWords {
				w = LeadWeight
			}
			f := &ps.sums[ps.indexOf(termHash(kindName, sb.String()))]
			f.count += w
			f.flags |= FlagName
			f.word = sb.String()
		}
	}
	addWords(bodyToks, inName, func(i int) float64 {
		if i < LeadWords {
			return LeadWeight
		}
		return 1
	})
	feats := resized(sc.feats, len(ps.sums))
	sc.feats = feats
	for i, f := range ps.sums {
		feats[i] = Feature{Term: f.term, Weight: float32(1 + math.Log(f.count)), Flags: f.flags}
	}
	if len(feats) > MaxProfileFeatures {
		sc.heavy = resized(sc.heavy, len(feats))
		feats = heaviest(feats, MaxProfileFeatures, sc.heavy)
	}
	// By term: the terms are distinct, so sorting each term with its
	// position beside it, as one integer, orders them as a sort of the
	// features would, without a comparison function.
	keys := resized(sc.keys, len(feats))
	sc.keys = keys
	for i, f := range feats {
		keys[i] = uint64(f.Term)<<32 | uint64(i)
	}
	slices.Sort(keys)
	sorted := make([]Feature, len(feats))
	texts := make([]string, len(feats))
	for i, k := range keys {
		f := feats[uint32(k)]
		sorted[i] = f
		texts[i] = ps.sums[ps.indexOf(f.Term)].word
	}
	return Profile{Features: sorted, Words: texts}
}

// profileScratch is what computing a profile uses and does not keep,
// pooled: made anew for each article, these slices and tables were a
// good part of a profile's cost.
type profileScratch struct {
	tz                       tokenizer
	lines                    []string
	titleToks, bodyToks      []token
	stop, inName, midCapital []bool
	stemmed                  []string
	stemmedIDs               []int32
	terms, stemTerms         []uint32
	featOf                   []int32
	ps                       profileSums
	feats                    []Feature
	keys, heavy              []uint64
	names                    []span
}

var profileScratches = sync.Pool{New: func() any {
	return new(profileScratch)
}}

// pooledProfileWords bounds the distinct words of a scratch put back in
// the pool: clearing its tables costs as much as they hold, and a rare
// huge article should not make every later one pay for it.
const pooledProfileWords = 1 << 14

// release puts the scratch back in the pool, without the texts it refers
// to.
func (sc *profileScratch) release() {
	if len(sc.tz.words) > pooledProfileWords || len(sc.ps.sums) > pooledProfileWords {
		return
	}
	clear(sc.tz.words)
	sc.tz.words = sc.tz.words[:0]
	clear(sc.lines)
	clear(sc.stemmed)
	clear(sc.ps.sums)
	sc.ps.sums = sc.ps.sums[:0]
	profileScratches.Put(sc)
}

// resized is s with n elements, reusing its array when it is large
// enough; the elements hold whatever they held.
func resized[T any](s []T, n int) []T {
	return slices.Grow(s[:0], n)[:n]
}

// heavierFeature orders features by weight, heaviest first, and equal
// weights by term: a total order, as a profile's terms are distinct, so
// the features a profile keeps do not depend on how they are found.
func heavierFeature(a, b Feature) int {
	if c := cmp.Compare(b.Weight, a.Weight); c != 0 {
		return c
	}
	return cmp.Compare(a.Term, b.Term)
}

// heaviest keeps, of feats, the k that come first in heavierFeature's
// order, in the order they are in, and returns them (feats[:k]); scratch
// is as long as feats. Each feature's place in that order is one integer
// (its weight's bits, heaviest first, then its term, the terms distinct),
// and the k smallest are selected among the integers: selectFirst with
// heavierFeature, a call for each comparison, was a tenth of a profile.
func heaviest(feats []Feature, k int, scratch []uint64) []Feature {
	if k <= 0 {
		return feats[:0]
	}
	keys := scratch[:len(feats)]
	for i, f := range feats {
		keys[i] = heavierKey(f)
	}
	selectLeast(keys, k)
	last := slices.Max(keys[:k])
	kept := feats[:0]
	for _, f := range feats {
		if heavierKey(f) <= last {
			kept = append(kept, f)
		}
	}
	return kept
}

// heavierKey orders features as heavierFeature does: by weight, the
// heaviest first (the float's bits made to order as the floats do, then
// inverted), then by term.
func heavierKey(f Feature) uint64 {
	w := math.Float32bits(f.Weight)
	if w&(1<<31) != 0 {
		w = ^w
	} else {
		w |= 1 << 31
	}
	return uint64(^w)<<32 | uint64(f.Term)
}

// selectLeast moves the k least of s to s[:k], in no particular order:
// selectFirst for integers, compared as such.
func selectLeast(s []uint64, k int) {
	lo, hi := 0, len(s)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if s[mid] < s[lo] {
			s[mid], s[lo] = s[lo], s[mid]
		}
		if s[hi] < s[lo] {
			s[hi], s[lo] = s[lo], s[hi]
		}
		if s[mid] < s[hi] {
			s[mid], s[hi] = s[hi], s[mid]
		}
		p := lo
		for i := lo; i < hi; i++ {
			if s[i] < s[hi] {
				s[i], s[p] = s[p], s[i]
				p++
			}
		}
		s[p], s[hi] = s[hi], s[p]
		switch {
		case p == k:
			return
		case p < k:
			lo = p + 1
		default:
			hi = p - 1
		}
	}
}

// selectFirst moves the k elements of s that come first in the total
// order cmp to s[:k], in no particular order, the rest after them: the
// kept features without sorting all of them.
func selectFirst[T any](s []T, k int, cmp func(a, b T) int) {
	lo, hi := 0, len(s)-1
	for lo < hi {
		// Median of three as the pivot, moved to hi; then the elements
		// before it in the order go left of its final place p.
		mid := lo + (hi-lo)/2
		if cmp(s[mid], s[lo]) < 0 {
			s[mid], s[lo] = s[lo], s[mid]
		}
		if cmp(s[hi], s[lo]) < 0 {
			s[hi], s[lo] = s[lo], s[hi]
		}
		if cmp(s[mid], s[hi]) < 0 {
			s[mid], s[hi] = s[hi], s[mid]
		}
		p := lo
		for i := lo; i < hi; i++ {
			if cmp(s[i], s[hi]) < 0 {
				s[i], s[p] = s[p], s[i]
				p++
			}
		}
		s[p], s[hi] = s[hi], s[p]
		switch {
		case p == k:
			return
		case p < k:
			lo = p + 1
		default:
			hi = p - 1
		}
	}
}

// termHash is the 32-bit feature hash of a word or name: its kind in the
// top two bits, a hash of the text in the rest.
func termHash(kind uint32, s string) uint32 {
	h := uint64(fnvOffset)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return kind<<30 | uint32(mix64(h)>>34)
}

// span is a run of tokens [from, to).
type span struct{ from, to int }

// names finds the names of a text: runs of capitalised words, which may
// hold "of", "de" and the like between two capitalised words ("Bank of
// America"). A capital that only opens a sentence is no evidence, so a
// run's sentence-opening word counts only when the same word is
// capitalised somewhere else in the text where it does not open a
// sentence. Headline-style lines (mostly capitalised) give no names
// either; the caller passes only body tokens. words are the tokens'
// texts, by id; the names are appended to out, and midCapital, one per
// word, is scratch.
func names(out []span, toks []token, words []string, stop, midCapital []bool) []span {
	// By word (token.id): capitalised somewhere it does not open a
	// sentence. stop tells the stop words, by word too.
	clear(midCapital)
	for _, t := range toks {
		if t.capital && !t.sentenceStart && !t.digit {
			midCapital[t.id] = true
		}
	}
	isCap := func(i int) bool {
		t := toks[i]
		if !t.capital || t.digit || stop[t.id] && !midCapital[t.id] {
			return false
		}
		return !t.sentenceStart || midCapital[t.id]
	}
	for i := 0; i < len(toks); {
		if !isCap(i) {
			i++
			continue
		}
		j := i + 1
		for j < len(toks) && !toks[j].sentenceStart {
			if isCap(j) {
				j++
				continue
			}
			if nameJoiners[words[toks[j].id]] && j+1 < len(toks) && !toks[j+1].sentenceStart && isCap(j+1) {
				j += 2
				continue
			}
			break
		}
		out = append(out, span{i, j})
		i = j
	}
	return out
}

// nameJoiners may stand inside a name between two capitalised words.
var nameJoiners = map[string]bool{"of": true, "de": true, "del": true, "da": true, "la": true, "van": true,
	"von": true, "bin": true, "al": true, "du": true, "le": true, "and": false}

// isStopWord reports whether a case-folded word is left out of profiles
// (the stop list of signatures).
func isStopWord(w string) bool {
	_, ok := stopWordText[w]
	return ok
}

// stemWord is the Snowball English stem of a case-folded word (words of
// one or two letters are their own stem).
func stemWord(w string) string {
	if len(w) <= 2 {
		return w
	}
	env := snowballstem.NewEnv(w)
	english.Stem(env)
	return env.Current()
}
