package tokens

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/internal/benchpages"
)

// splitters pairs each encoding's splitter with the one it replaced.
var splitters = []struct {
	enc      Encoding
	got, ref func(s string, i int) int
}{
	{CL100kBase, nextPieceCL100k, refNextPieceCL100k},
	{O200kBase, nextPieceO200k, refNextPieceO200k},
}

// samePieces fails unless both splitters cut s at the same places. Counts
// alone could hide two misplaced cuts whose pieces happen to cost the same.
func samePieces(t testing.TB, enc Encoding, got, ref func(string, int) int, s string) {
	t.Helper()
	for i := 0; i < len(s); {
		g, r := got(s, i), ref(s, i)
		if g != r {
			t.Fatalf("%s: piece at byte %d of %q: %q, before %q", enc, i, s, s[i:g], s[i:r])
		}
		if g <= i {
			t.Fatalf("%s: no progress at byte %d of %q", enc, i, s)
		}
		i = g
	}
}

// splitAlphabet holds a character of every class the splitters tell
// apart: contraction letters in both cases, upper, lower, title-case,
// modifier and other letters, marks, digits of several scripts, every
// kind of white space and punctuation, and invalid UTF-8.
var splitAlphabet = []string{
	"a", "z", "A", "Z", "s", "S", "t", "T", "r", "R", "e", "E", "v", "V", "m", "M", "l", "L", "d", "D",
	"'", "'", "é", "É", "ǅ", "ʰ", "東", "한", "ไ", "\u0301", "\u0903",
	"0", "7", "٣", "²", "½", "Ⅻ", "２",
	" ", " ", "  ", "\t", "\n", "\r", "\r\n", "\v", "\f", "\u00a0", "\u2003", "\u2028", "\u0085", "\u200b",
	".", ",", "/", "//", "<", ">", "&", "\"", "-", "_", "^", "`", "😀", "\x00", "\x7f",
	"\xff", "\xe2\x82", "\xc0",
}

// TestSplitMatchesReferenceRandom compares the splitters piece by piece
// on random strings over splitAlphabet, invalid UTF-8 included.
func TestSplitMatchesReferenceRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(splitAlphabet[r.IntN(len(splitAlphabet))])
		}
		s := b.String()
		for _, sp := range splitters {
			samePieces(t, sp.enc, sp.got, sp.ref, s)
		}
	}
}

// TestSplitMatchesReferenceOnText compares them on the known cases and
// on every extraction test page and fragment.
func TestSplitMatchesReferenceOnText(t *testing.T) {
	texts := append([]string{
		"I'M HERE 'S 'T 'RE 'VE 'M 'LL 'D 's 't 're 've 'm 'll 'd 'x 'r 'l",
		"1234567890 ١٢٣٤٥ 12a34 ab12 ½½½½",
		"   leading\n\n   after\r\n\t\tx  \n  \u00a0y",
		"!!!\n\n?!/// ...\r\n ;; ~~//\n",
		"ΑΒΓ αβγ ǅemal ʰʰx 東京タワー 한국어 e\u0301\u0301X",
	}, tokenCases...)
	files, _ := filepath.Glob(filepath.Join("..", "..", "sources", "extract", "testdata", "*", "*.*"))
	if len(files) == 0 {
		t.Fatal("no test files")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		for _, sp := range splitters {
			samePieces(t, sp.enc, sp.got, sp.ref, s)
		}
	}
}

// TestSplitMatchesReferenceOnBenchmarkPages compares them on the HTML of
// the extraction benchmark's real pages, which are not in the repository:
// it runs only when their directory is given, as for the benchmarks.
func TestSplitMatchesReferenceOnBenchmarkPages(t *testing.T) {
	for _, p := range benchpages.ForBenchmark(t) {
		for _, sp := range splitters {
			samePieces(t, sp.enc, sp.got, sp.ref, string(p.HTML))
		}
	}
}

func FuzzSplitMatchesReference(f *testing.F) {
	for _, s := range tokenCases {
		f.Add(s)
	}
	f.Add("\xff's\xc0 ǅ\u0301'LL")
	f.Fuzz(func(t *testing.T, s string) {
		for _, sp := range splitters {
			samePieces(t, sp.enc, sp.got, sp.ref, s)
		}
	})
}

// BenchmarkSplit cuts the extraction test pages into pieces with each
// splitter, the current one beside the one it replaced, without counting.
// One op is every page in both encodings' splitters of the kind.
func BenchmarkSplit(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "sources", "extract", "testdata", "*", "*.*"))
	var texts []string
	bytes := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, string(raw))
		bytes += len(raw)
	}
	for _, kind := range []string{"current", "before"} {
		b.Run(kind, func(b *testing.B) {
			b.SetBytes(int64(2 * bytes))
			for range b.N {
				for _, sp := range splitters {
					split := sp.got
					if kind == "before" {
						split = sp.ref
					}
					for _, s := range texts {
						for i := 0; i < len(s); i = split(s, i) {
						}
					}
				}
			}
		})
	}
}
