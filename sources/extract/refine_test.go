package extract

import (
	"strings"
	"testing"
)

// para is a paragraph long enough for the extractor to keep.
func para(s string) string {
	return "<p>" + s + " " + strings.Repeat("The committee met again on Tuesday to go through the figures line by line. ", 3) + "</p>"
}

func TestExtractDropsHeaderLinesKeepsProse(t *testing.T) {
	page := `<html><head><title>Budget vote delayed</title></head><body><article>
<h1>Budget vote delayed</h1>
<p>By Kim Writer</p>
<p>November 20, 2019 10:43</p>` +
		para("By the time the vote was called, half the members had left.") +
		para("Officials said a new date would be set next week.") +
		`<p><a href="/related/1">READ MORE: Council tax to rise by two percent</a></p>` +
		para("The delay leaves the schools budget unsettled for another month.") +
		`<p>Updated 11:02</p>
</article></body></html>`
	doc, err := Extract([]byte(page), "https://news.example/budget", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"Budget vote delayed", "Kim Writer", "10:43", "READ MORE", "Updated 11:02"} {
		if strings.Contains(doc.Markdown, gone) {
			t.Errorf("body keeps %q:\n%s", gone, doc.Markdown)
		}
	}
	for _, kept := range []string{"By the time the vote was called", "new date would be set", "schools budget unsettled"} {
		if !strings.Contains(doc.Markdown, kept) {
			t.Errorf("body lost %q:\n%s", kept, doc.Markdown)
		}
	}
}
