package tokens

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// referenceEncoder is tiktoken-go itself, the reference the counter must
// agree with token for token.
var referenceEncoder = sync.OnceValue(func() map[Encoding]*tiktoken.Tiktoken {
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	out := map[Encoding]*tiktoken.Tiktoken{}
	for _, enc := range []Encoding{CL100kBase, O200kBase} {
		t, err := tiktoken.GetEncoding(string(enc))
		if err != nil {
			panic(err)
		}
		out[enc] = t
	}
	return out
})

func referenceCount(enc Encoding, s string) int {
	return len(referenceEncoder()[enc].EncodeOrdinary(s))
}

func mustCounter(t testing.TB, enc Encoding) *Counter {
	t.Helper()
	c, err := For(enc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var tokenCases = []string{
	"",
	"Hello, world!",
	"hello world",
	"  leading spaces and trailing   ",
	"tabs\tand\nnewlines\r\n\r\n\n  indented\n\t\tcode",
	"They're here, it's mine, we'll see, I'd go, you've won, I'm in. THEY'RE SHOUTING'S",
	"'sand 'tis 'reason 'll",
	"HelloWorld HTTPServer iPhone McDonald's XMLHttpRequest ALLCAPS",
	"1234567 3.14159 1,000,000 ２０２６年",
	"²³ ½ Ⅻ ٣٤٥",
	"日本語のテキストです。中文文本。한국어 텍스트",
	"Ünïcödé çàñ bé dëcömpösed: e\u0301 a\u0308 n\u0303",
	"emoji 👍🏽 family 👨‍👩‍👧 flags 🇫🇷",
	"non\u00a0breaking\u2003em\u2028line\u2029para\u0085nel",
	"<div class=\"main\"><p>Text &amp; <a href=\"/x?y=1&z=2\">link</a></p></div>\n",
	"path/to/file.go ../../etc https://example.org/a/b?c=d#e",
	"```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```",
	"**bold** _it_ [link](https://x.test) ![img](a.png) | a | b |\n|---|---|",
	"<|endoftext|> and <|fim_prefix|> are ordinary text here",
	"invalid \xff\xfe utf8 \xc3 bytes",
	"ـــ Arabic: مرحبا بالعالم، هذا نص. Hebrew: שלום עולם",
	"Ελληνικά κείμενα ΚΕΦΑΛΑΙΑ και Русский ТЕКСТ здесь",
	"\u0301\u0301leading marks and a mark after space \u0301x",
	"   \n   \n",
	"a\n\n\n\nb    \n    c",
	"x  \u00a0 y",
	strings.Repeat("a", 300) + " " + strings.Repeat("ab", 200) + " " + strings.Repeat("xyz1", 50),
}

// TestCountMatchesTiktoken compares the counter with tiktoken-go on text
// that exercises every alternative of both pre-tokenisation patterns.
func TestCountMatchesTiktoken(t *testing.T) {
	for _, enc := range []Encoding{CL100kBase, O200kBase} {
		c := mustCounter(t, enc)
		for _, s := range tokenCases {
			if got, want := c.Count(s), referenceCount(enc, s); got != want {
				t.Errorf("%s: Count(%q) = %d, tiktoken-go says %d", enc, s, got, want)
			}
		}
	}
}

// TestCountMatchesTiktokenOnPages runs the comparison over every test page
// and fragment, as HTML and as the Markdown made of it.
func TestCountMatchesTiktokenOnPages(t *testing.T) {
	// The extraction test pages and fragments, as HTML and as Markdown.
	files, _ := filepath.Glob(filepath.Join("..", "..", "sources", "extract", "testdata", "*", "*.*"))
	if len(files) == 0 {
		t.Fatal("no test files")
	}
	for _, enc := range []Encoding{CL100kBase, O200kBase} {
		c := mustCounter(t, enc)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := c.Count(string(b)), referenceCount(enc, string(b)); got != want {
				t.Errorf("%s: %s: %d tokens, tiktoken-go says %d", enc, f, got, want)
			}
		}
	}
}

// TestCountLongPieces checks the heap merge against the reference on
// pieces long enough to use it, and that the quadratic and heap merges
// agree with each other.
func TestCountLongPieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("abcdefghijklmnopqrstuvwxyzABCDEéàü日本")
	for _, enc := range []Encoding{CL100kBase, O200kBase} {
		c := mustCounter(t, enc)
		for n := range 20 {
			var b strings.Builder
			for range 100 + n*60 {
				b.WriteRune(alphabet[rng.IntN(len(alphabet))])
			}
			s := b.String()
			if got, want := c.Count(s), referenceCount(enc, s); got != want {
				t.Errorf("%s: piece of %d bytes: %d tokens, tiktoken-go says %d", enc, len(s), got, want)
			}
			var sc mergeScratch
			if q, h := c.vocab.mergeQuadratic(s, &sc), c.vocab.mergeHeap(s, &sc); q != h {
				t.Errorf("%s: quadratic merge %d parts, heap merge %d", enc, q, h)
			}
		}
	}
}

// TestCountHostilePiece: a megabyte without a break is counted in linear
// time (a quadratic merge would take minutes).
func TestCountHostilePiece(t *testing.T) {
	c := mustCounter(t, O200kBase)
	s := strings.Repeat("qzxj", 1<<18)
	if n := c.Count(s); n < len(s)/16 || n > len(s) {
		t.Errorf("Count of 1 MiB of letters = %d", n)
	}
}

// TestCountRandomText feeds every kind of character, white space and
// control characters included, in random order.
func TestCountRandomText(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("a Z9 \t\n\r\v\f\u00a0\u2003\u200b.,;'/<>&é東한ไ😀\u0301\x00\x7fSsTtRE")
	for _, enc := range []Encoding{CL100kBase, O200kBase} {
		c := mustCounter(t, enc)
		for range 300 {
			var b strings.Builder
			for range r.IntN(200) {
				b.WriteRune(alphabet[r.IntN(len(alphabet))])
			}
			if r.IntN(4) == 0 {
				b.WriteString("\xff\xfe") // invalid UTF-8
			}
			s := b.String()
			if got, want := c.Count(s), referenceCount(enc, s); got != want {
				t.Fatalf("%s: Count(%q) = %d, tiktoken-go says %d", enc, s, got, want)
			}
		}
	}
}

func TestCounterUnknownEncoding(t *testing.T) {
	if _, err := For("p50k_base"); err == nil || !strings.Contains(err.Error(), "p50k_base") {
		t.Errorf("For(p50k_base) error = %v", err)
	}
}

func FuzzTokenCount(f *testing.F) {
	for _, s := range tokenCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		for _, enc := range []Encoding{CL100kBase, O200kBase} {
			if got, want := mustCounter(t, enc).Count(s), referenceCount(enc, s); got != want {
				t.Fatalf("%s: Count(%q) = %d, tiktoken-go says %d", enc, s, got, want)
			}
		}
	})
}
