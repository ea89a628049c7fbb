package firecrawl

import "testing"

// TestDecodeSuccessOddShapes: 200 answers that are not what Firecrawl
// should send are failures or degrade to an empty metadata map, never a
// panic or a half-filled page.
func TestDecodeSuccessOddShapes(t *testing.T) {
	cases := []struct {
		body  string
		msg   string // "" = a page
		html  string
		title string
	}{
		{body: `{"success":true,"data":{"html":"<p>x</p>","metadata":{"title":"T","Title":"Meta"}}}`, html: "<p>x</p>", title: "T"},
		{body: `{"success":true,"data":{"html":"<p>x</p>","metadata":"oops"}}`, html: "<p>x</p>"},
		{body: `{"success":true,"data":{"html":"<p>x</p>","metadata":null}}`, html: "<p>x</p>"},
		{body: `{"success":true,"data":{"html":42,"metadata":{"title":"T"}}}`, msg: "Firecrawl sent html that is not a string"},
		{body: `{"success":true,"data":"oops"}`, msg: "Firecrawl answered success without data"},
		{body: `{"success":true,"data":null}`, msg: "Firecrawl answered success without data"},
		{body: `{"success":"true","data":{"html":"x"}}`, msg: "Firecrawl reported failure"},
		{body: `{"success":false,"error":"engine crashed"}`, msg: "Firecrawl reported failure"},
		{body: `{"success":true,"data":{"html":"x"`, msg: "Firecrawl sent malformed JSON"},
		{body: `[1,2]`, msg: "Firecrawl sent malformed JSON"},
	}
	for _, tc := range cases {
		page, fe := decodeSuccess([]byte(tc.body))
		switch {
		case tc.msg != "" && (fe == nil || fe.Msg != tc.msg):
			t.Errorf("%s: page %+v err %v, want %q", tc.body, page, fe, tc.msg)
		case tc.msg == "" && fe != nil:
			t.Errorf("%s: %v", tc.body, fe)
		case tc.msg == "" && (page.HTML != tc.html || page.MetaString("title") != tc.title || page.Metadata == nil):
			t.Errorf("%s: page %+v", tc.body, page)
		}
	}
}
