package extract

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
)

// TestMarkdownBaseMatchesLibrary converts markup with the converter as
// built (markdownBase) and with the library's own base plugin in its
// place: every ASCII character in the places where Markdown gives
// characters a meaning, random runs of Markdown syntax, and the
// fixtures. The output must be the same byte for byte; a library upgrade
// that changes its base plugin fails here.
func TestMarkdownBaseMatchesLibrary(t *testing.T) {
	ours, theirs := newConverterWith(markdownBase{}), newConverterWith(base.NewBasePlugin())
	contexts := []string{"<p>a%sb</p>", "<p>%s a</p>", "<p>1%s x</p>", "<p>12%s</p>", "<ul><li>%s%s%s</li></ul>",
		"<p><a href=\"/x\">t%s]</a></p>", "<table><tr><td>%s|</td></tr></table>", "<pre>%s</pre>",
		"<p><code>%s`</code></p>", "<h1>x %s</h1>", "<p>x<br>%s%s%s</p>", "<blockquote>%s</blockquote>",
		"<p><em>%s</em>%s<strong>%s</strong></p>", "<p>a</p>\n\n\n<p>%s</p>", "<p>a  <br>  %s</p>"}
	var inputs []string
	for c := range 128 {
		for _, ctx := range contexts {
			inputs = append(inputs, strings.ReplaceAll(ctx, "%s", string(rune(c))))
		}
	}
	syntax := []string{"*", "_", "-", "+", ".", ">", "|", "#", "=", "[", "]", "(", ")", "!", "~", "`", "\"", "'",
		"\\", "$", " ", "\n", "1", "a", "<", "&", "&amp;", "\x00", "é", "\u00a0", "<b>", "</b>", "<br>", "<p>"}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 3000 {
		var b strings.Builder
		for range 1 + rng.IntN(20) {
			b.WriteString(syntax[rng.IntN(len(syntax))])
		}
		inputs = append(inputs, "<p>"+b.String()+"</p>")
	}
	for _, dir := range []string{"testdata/fragments", "testdata/pages"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.html"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, string(b))
		}
	}
	convert := func(conv *converter.Converter, in string) string {
		nodes, err := parseFragment(in)
		if err != nil {
			t.Fatal(err)
		}
		root := fragmentRoot(nodes)
		cleanForMarkdown(root, nil)
		out, err := conv.ConvertNode(root)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	for _, in := range inputs {
		if got, want := convert(ours, in), convert(theirs, in); got != want {
			t.Fatalf("%q: markdownBase gives %q, the library's base plugin %q", in, got, want)
		}
	}
}

// referenceTrimConsecutiveNewlines is plugin/base's, rune by rune.
func referenceTrimConsecutiveNewlines(input []byte) []byte {
	var result []byte
	newlineCount := 0
	spaceBuffer := []byte{}
	for i := 0; i < len(input); {
		r, size := utf8.DecodeRune(input[i:])
		if r == '\n' {
			newlineCount++
			if newlineCount <= 2 {
				result = append(result, spaceBuffer...)
				result = append(result, '\n')
			}
			spaceBuffer = spaceBuffer[:0]
		} else if r == ' ' {
			spaceBuffer = append(spaceBuffer, input[i:i+size]...)
		} else {
			newlineCount = 0
			result = append(result, spaceBuffer...)
			result = append(result, input[i:i+size]...)
			spaceBuffer = spaceBuffer[:0]
		}
		i += size
	}
	return append(result, spaceBuffer...)
}

func TestTrimConsecutiveNewlinesMatchesLibrary(t *testing.T) {
	pieces := []string{"\n", " ", "  ", "a", "bc", "é", "\xff", "\xe2\x80", "\t", "\u00a0", "\r"}
	rng := rand.New(rand.NewPCG(9, 10))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		in := []byte(b.String())
		if got, want := trimConsecutiveNewlines(in), referenceTrimConsecutiveNewlines(in); string(got) != string(want) {
			t.Fatalf("trimConsecutiveNewlines(%q) = %q, want %q", in, got, want)
		}
	}
}
