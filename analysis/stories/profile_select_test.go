package stories

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/feedpoller/feedpoller/internal/testpages"
)

// TestSelectFirstKeepsWhatASortKeeps: the features a long profile keeps
// (selectFirst, and heaviest, which profiles use) are those a full sort
// by weight would put first, on weights with many ties (the term decides
// those), of any sign and size, and in any starting order.
func TestSelectFirstKeepsWhatASortKeeps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	weights := []float32{float32(math.Inf(-1)), -7.5, -1, -0.25, 0, 0.001, 0.5, 1, float32(1 + math.Log(2)), 3.7, 100,
		math.MaxFloat32, float32(math.Inf(1)), math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32}
	for _, n := range []int{1, 2, 3, 10, 161, 162, 300, 1000} {
		for _, k := range []int{0, 1, n / 2, n - 1} {
			for range 20 {
				feats := make([]Feature, n)
				for i := range feats {
					// Few distinct weights; distinct terms, as in a profile.
					feats[i] = Feature{Term: uint32(rng.IntN(1 << 30)), Weight: float32(rng.IntN(4))}
					if rng.IntN(3) == 0 {
						// Weights of any sign and size, as 1+log(count) gives.
						feats[i].Weight = weights[rng.IntN(len(weights))]
					}
				}
				slices.SortFunc(feats, func(a, b Feature) int { return int(a.Term) - int(b.Term) })
				feats = slices.CompactFunc(feats, func(a, b Feature) bool { return a.Term == b.Term })
				if k >= len(feats) {
					continue
				}
				rng.Shuffle(len(feats), func(i, j int) { feats[i], feats[j] = feats[j], feats[i] })
				want := slices.Clone(feats)
				slices.SortFunc(want, heavierFeature)
				want = want[:k]
				got := slices.Clone(feats)
				selectFirst(got, k, heavierFeature)
				got = got[:k]
				slices.SortFunc(got, heavierFeature)
				if !slices.Equal(got, want) {
					t.Fatalf("n=%d k=%d: kept %v, want %v", len(feats), k, got, want)
				}
				order := slices.Clone(feats)
				kept := heaviest(order, k, make([]uint64, len(order)))
				if !slices.IsSortedFunc(kept, func(a, b Feature) int {
					return slices.Index(feats, a) - slices.Index(feats, b)
				}) {
					t.Fatalf("n=%d k=%d: heaviest did not keep the features in their order", len(feats), k)
				}
				slices.SortFunc(kept, heavierFeature)
				if !slices.Equal(kept, want) {
					t.Fatalf("n=%d k=%d: heaviest kept %v, want %v", len(feats), k, kept, want)
				}
			}
		}
	}
}

func TestMoreWordsThan(t *testing.T) {
	texts := []string{"", " ", "one", " one two ", "a\tb\nc", strings.Repeat("word ", 50), "x  y   z",
		"no\u00a0break\rcr\vvt “quoted” — dash", "\xff\xfe bad bytes"}
	for _, a := range loadStorySet(t)[:40] {
		texts = append(texts, a.Title, a.Markdown)
		for l := range strings.Lines(a.Markdown) {
			texts = append(texts, l)
		}
	}
	for _, s := range texts {
		words := len(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }))
		for n := range 55 {
			if got := moreWordsThan(s, n); got != (words > n) {
				t.Errorf("moreWordsThan(%q, %d) = %v with %d words", s, n, got, words)
			}
		}
	}
}

// TestIsStopHashIsTheStopList: the table answers as the map of stop
// words does, for every stop word and every word of real pages.
func TestIsStopHashIsTheStopList(t *testing.T) {
	var wh wordHasher
	var hashes []uint64
	for _, w := range stopWordList {
		hashes = wh.appendWords(hashes, w)
	}
	for _, text := range testpages.Read(t, "../..", testpages.Converted) {
		hashes = wh.appendWords(hashes, text)
	}
	hashes = append(hashes, 0, 1, ^uint64(0))
	stops := 0
	for _, h := range hashes {
		_, want := stopWords[h]
		if got := isStopHash(h); got != want {
			t.Fatalf("isStopHash(%#x) = %v, want %v", h, got, want)
		}
		if want {
			stops++
		}
	}
	if stops < len(stopWordList) || stops == len(hashes) {
		t.Fatalf("%d stop words among %d words: the check saw too little", stops, len(hashes))
	}
}

// TestInternNumbersWordsInFirstMetOrder: the table of words gives each
// distinct text one id, in the order first met, through its growing and
// whatever its hashes share.
func TestInternNumbersWordsInFirstMetOrder(t *testing.T) {
	var line strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&line, "w%d x%d w%d ", i%1700, i%13, i%977)
	}
	for _, tz := range []tokenizer{{}, newTokenizer(3), newTokenizer(5000)} {
		toks := tz.appendTokens(nil, line.String())
		fields := strings.Fields(line.String())
		if len(toks) != len(fields) {
			t.Fatalf("%d tokens, want %d", len(toks), len(fields))
		}
		want := map[string]int32{}
		for i, tk := range toks {
			text := fields[i]
			if tz.words[tk.id] != text {
				t.Fatalf("token %d is %q, want %q", i, tz.words[tk.id], text)
			}
			id, ok := want[text]
			if !ok {
				id = int32(len(want))
				want[text] = id
			}
			if tk.id != id {
				t.Fatalf("%q has id %d, want %d", text, tk.id, id)
			}
		}
		if len(tz.words) != len(want) || 2*len(tz.words) > len(tz.slots) {
			t.Fatalf("%d words in a table of %d slots, want %d words, at most half full", len(tz.words), len(tz.slots), len(want))
		}
	}
}

// TestNFKDKeepsWhatIsDecomposed: nfkd is NFKD, and gives back a line
// already in NFKD without copying it into the buffer.
func TestNFKDKeepsWhatIsDecomposed(t *testing.T) {
	for _, s := range []string{"", "plain ascii", "“Quoted” — dash…", "café", "cafe\u0301", "ﬁnance ＡＩ", "São Paulo", "\xff bad"} {
		got, buf := nfkd(s, nil)
		if want := norm.NFKD.String(s); got != want {
			t.Errorf("nfkd(%q) = %q, want %q", s, got, want)
		}
		if norm.NFKD.IsNormalString(s) && buf != nil {
			t.Errorf("nfkd(%q) copied a line already in NFKD", s)
		}
	}
}
