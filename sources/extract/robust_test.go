package extract

import (
	"strings"
	"testing"
)

// hostile inputs must produce an error or a result, never a panic or a hang.
var hostile = []string{
	"",
	"\x00\xff\xfe garbage \x01",
	"<html>" + strings.Repeat("<div>", 20000) + "deep" + strings.Repeat("</div>", 3),
	strings.Repeat("<a href='javascript:x'>", 5000),
	`<script type="application/ld+json">{"@graph":[{"@graph":[{"@graph":[{"@type":"Article","author":{"@id":"x"}},{"@id":"x","author":{"@id":"x"}}]}]}]}</script>`,
	`<script type="application/ld+json">[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]</script>`,
	`<div itemscope itemtype="https://schema.org/Article"><div itemprop="author" itemscope><div itemprop="author" itemscope>x</div></div></div>`,
	`<pre><code class="language-">` + strings.Repeat("`", 100) + `</code></pre>`,
	`<table>` + strings.Repeat("<tr><td colspan=1000 rowspan=1000>x", 50) + `</table>`,
	`<base href="http://[::1]:namedport"><a href="%zz">bad url</a><img src="::::">`,
	`<meta property="article:published_time" content="99999999999999999999">`,
}

func TestHostileInputDoesNotPanic(t *testing.T) {
	for i, in := range hostile {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("input %d panicked: %v", i, r)
				}
			}()
			_ = ParseMetadata([]byte(in), "https://example.org/")
			_, _ = FragmentToMarkdown(in, "::bad base")
			_, _ = Extract([]byte(in), "https://example.org/", Options{})
			_, _ = countTokens(in)
		}()
	}
}

func FuzzFragmentToMarkdown(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Add(`<h1>x</h1><p>a <a href="/b">c</a></p>`)
	f.Fuzz(func(t *testing.T, in string) {
		md, err := FragmentToMarkdown(in, "https://example.org/a/")
		if err == nil && strings.Contains(md, "&amp;amp;") && !strings.Contains(in, "&amp;amp;") {
			t.Errorf("double escaped: %q -> %q", in, md)
		}
	})
}

func FuzzExtract(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		_, _ = Extract([]byte(in), "https://example.org/", Options{})
	})
}
