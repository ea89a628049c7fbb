package stories

import (
	"cmp"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/internal/testpages"
)

// The profile is computed through remembered stems and one table of
// sums; it must stay what the straightforward computation below (the
// code before that change) gives, feature for feature and word for word,
// on realistic news and on converted real pages.
func TestProfileMatchesReference(t *testing.T) {
	type doc struct{ name, title, body string }
	var docs []doc
	for _, a := range loadStorySet(t) {
		docs = append(docs, doc{a.ID, a.Title, a.Markdown})
	}
	for name, text := range testpages.Read(t, "../..", testpages.Converted) {
		docs = append(docs, doc{name, filepath.Base(name), text})
	}
	shared := NewStems(50000)
	tiny := NewStems(3) // starts over every few words
	for _, d := range docs {
		want := referenceProfile(d.title, d.body)
		for name, got := range map[string]Profile{
			"alone": NewProfile(d.title, d.body), "shared": shared.Profile(d.title, d.body), "tiny": tiny.Profile(d.title, d.body),
		} {
			if !slices.Equal(got.Features, want.Features) || !slices.Equal(got.Words, want.Words) {
				t.Errorf("%s (%s stems): profile differs from the reference\n got %v %v\nwant %v %v",
					d.name, name, got.Features, got.Words, want.Features, want.Words)
			}
		}
	}
	if len(docs) < 50 {
		t.Fatalf("only %d documents compared", len(docs))
	}
}

func referenceProfile(title, body string) Profile {
	titleToks := referenceTokens(nil, title)
	var bodyToks []refToken
	for _, line := range StripFurniture(body) {
		bodyToks = referenceTokens(bodyToks, line)
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
			s = stemWord(w)
		}
		stems[w] = s
		return s
	}
	addWords := func(toks []refToken, inName []bool, base func(i int) float64) {
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
	for _, n := range referenceNames(bodyToks) {
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

// referenceNames is names as it was, telling words apart by their text.
func referenceNames(toks []refToken) []span {
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
