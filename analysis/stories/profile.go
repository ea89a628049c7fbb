package stories

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/kljensen/snowball/english"
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
	MaxProfileFeatures = 160
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
	var tz tokenizer
	titleToks := tz.appendTokens(nil, title)
	var bodyToks []token
	for _, line := range StripFurniture(body) {
		bodyToks = tz.appendTokens(bodyToks, line)
	}
	counts := map[uint32]float64{}
	flags := map[uint32]uint8{}
	words := map[uint32]string{}
	stems := map[string]string{}
	stem := func(w string) string {
		if s, ok := stems[w]; ok {
			return s
		}
		s := w
		if !strings.ContainsAny(w, "0123456789") {
			s = english.Stem(w, true)
		}
		stems[w] = s
		return s
	}
	addWords := func(toks []token, inName []bool, base func(i int) float64) {
		for i, t := range toks {
			if isStopWord(t.text) || len(t.text) < 2 && !t.digit {
				continue
			}
			w := base(i)
			h := termHash(kindWord, stem(t.text))
			if t.digit {
				w *= NumberWeight
				flags[h] |= FlagNumber
			} else if inName != nil && inName[i] {
				w *= NameWeight
				flags[h] |= FlagName
			}
			counts[h] += w
			if _, ok := words[h]; !ok {
				words[h] = t.text
			}
		}
	}
	addWords(titleToks, nil, func(int) float64 { return TitleWeight })
	inName := make([]bool, len(bodyToks))
	for _, n := range names(bodyToks) {
		for i := n.from; i < n.to; i++ {
			inName[i] = true
		}
		if n.to-n.from >= 2 {
			var sb strings.Builder
			for i := n.from; i < n.to; i++ {
				if isStopWord(bodyToks[i].text) {
					continue
				}
				if sb.Len() > 0 {
					sb.WriteByte(' ')
				}
				sb.WriteString(bodyToks[i].text)
			}
			w := 1.0
			if n.from < LeadWords {
				w = LeadWeight
			}
			h := termHash(kindName, sb.String())
			counts[h] += w
			flags[h] |= FlagName
			words[h] = sb.String()
		}
	}
	addWords(bodyToks, inName, func(i int) float64 {
		if i < LeadWords {
			return LeadWeight
		}
		return 1
	})
	feats := make([]Feature, 0, len(counts))
	for term, c := range counts {
		feats = append(feats, Feature{Term: term, Weight: float32(1 + math.Log(c)), Flags: flags[term]})
	}
	if len(feats) > MaxProfileFeatures {
		slices.SortFunc(feats, func(a, b Feature) int {
			if c := cmp.Compare(b.Weight, a.Weight); c != 0 {
				return c
			}
			return cmp.Compare(a.Term, b.Term)
		})
		feats = feats[:MaxProfileFeatures]
	}
	slices.SortFunc(feats, func(a, b Feature) int { return cmp.Compare(a.Term, b.Term) })
	texts := make([]string, len(feats))
	for i, f := range feats {
		texts[i] = words[f.Term]
	}
	return Profile{Features: feats, Words: texts}
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
// either; the caller passes only body tokens.
func names(toks []token) []span {
	midCapital := map[string]bool{}
	for _, t := range toks {
		if t.capital && !t.sentenceStart && !t.digit {
			midCapital[t.text] = true
		}
	}
	isCap := func(i int) bool {
		t := toks[i]
		if !t.capital || t.digit || isStopWord(t.text) && !midCapital[t.text] {
			return false
		}
		return !t.sentenceStart || midCapital[t.text]
	}
	var out []span
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
			if nameJoiners[toks[j].text] && j+1 < len(toks) && !toks[j+1].sentenceStart && isCap(j+1) {
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
