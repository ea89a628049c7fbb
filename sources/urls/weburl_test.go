package urls

import (
	"net/url"
	"testing"
)

func TestAbsolute(t *testing.T) {
	base, err := url.Parse("https://news.example.com/feeds/all.xml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		base *url.URL
		ref  string
		want string
	}{
		{"absolute", base, "https://other.example/a?b=1#c", "https://other.example/a?b=1#c"},
		{"root-relative", base, "/2026/story", "https://news.example.com/2026/story"},
		{"path-relative", base, "story.html", "https://news.example.com/feeds/story.html"},
		{"dot segments", base, "../img/a.png", "https://news.example.com/img/a.png"},
		{"absolute, dot segments removed", base, "https://other.example/a/./b/../c", "https://other.example/a/c"},
		{"scheme-relative", base, "//cdn.example/x.jpg", "https://cdn.example/x.jpg"},
		{"spaces trimmed", base, "  /padded \n", "https://news.example.com/padded"},
		{"plain http", base, "http://old.example/", "http://old.example/"},
		{"empty", base, "", ""},
		{"blank", base, "   ", ""},
		{"unparsable", base, "http://[::1", ""},
		{"mailto", base, "mailto:ed@example.com", ""},
		{"javascript", base, "javascript:alert(1)", ""},
		{"data", base, "data:image/png;base64,AAAA", ""},
		{"no host", base, "https:///path", ""},
		{"no base, absolute", nil, "https://news.example.com/a", "https://news.example.com/a"},
		{"no base, relative", nil, "/a", ""},
		{"no base, opaque id", nil, "tag:example.com,2026:1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Absolute(tt.base, tt.ref); got != tt.want {
				t.Errorf("Absolute(%v, %q) = %q, want %q", tt.base, tt.ref, got, tt.want)
			}
		})
	}
}
