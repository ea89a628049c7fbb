package storyfeeds

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Synth writes synthetic articles of one workspace's topic for
// benchmarks that need many articles, no two alike: words drawn with a
// Zipf law from the story set's vocabulary, figures sprinkled in, a
// paragraph every 18 words. Deterministic for a seed.
type Synth struct {
	vocab []string
	rng   *rand.Rand
	zipf  *rand.Zipf
}

// NewSynth takes its vocabulary from the set's articles.
func NewSynth(set []Article, seed uint64) *Synth {
	seen := map[string]bool{}
	var vocab []string
	for _, a := range set {
		for _, w := range strings.Fields(a.Markdown) {
			w = strings.Trim(strings.ToLower(w), ".,;:\"'()“”‘’-?!")
			if w != "" && !seen[w] {
				seen[w] = true
				vocab = append(vocab, w)
			}
		}
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return &Synth{vocab: vocab, rng: rng, zipf: rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))}
}

// Article is a new article: a title of 8 words and a body of 150 to 349.
func (s *Synth) Article() (title, body string) {
	var b strings.Builder
	n := 150 + s.rng.IntN(200)
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		if s.rng.IntN(25) == 0 {
			fmt.Fprintf(&b, "%d", s.rng.IntN(5000))
		} else {
			b.WriteString(s.vocab[s.zipf.Uint64()])
		}
		if i%18 == 17 {
			b.WriteString(".\n\n")
		}
	}
	words := make([]string, 8)
	for i := range words {
		words[i] = s.vocab[s.zipf.Uint64()]
	}
	return strings.Join(words, " "), b.String()
}
