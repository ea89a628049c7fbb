package urls

import "testing"

// TestSourceKey: one feed written several ways has one key; a feed URL's
// query, tracking-looking parameters and order included, is part of it.
func TestSourceKey(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"scheme and host case", "HTTP://News.Example.COM/feed", "http://news.example.com/feed"},
		{"fragment", "https://news.example.com/feed#latest", "https://news.example.com/feed"},
		{"empty query", "https://news.example.com/feed?", "https://news.example.com/feed"},
		{"default port", "https://news.example.com:443/feed", "https://news.example.com/feed"},
		{"empty path", "https://news.example.com", "https://news.example.com/"},
		{"dot segments", "https://news.example.com/a/../feed", "https://news.example.com/feed"},
		{"escapes", "https://news.example.com/%7efeed?tag=caf%c3%a9", "https://news.example.com/~feed?tag=caf%C3%A9"},
		{"query order kept", "https://news.example.com/feed?b=2&a=1", "https://news.example.com/feed?b=2&a=1"},
		{"tracking-looking parameters kept", "https://news.example.com/feed?utm_source=partner", "https://news.example.com/feed?utm_source=partner"},
		{"repeated keys kept", "https://news.example.com/feed?t=a&t=a", "https://news.example.com/feed?t=a&t=a"},
		{"empty pairs dropped", "https://news.example.com/feed?&a=1&&b=", "https://news.example.com/feed?a=1&b="},
		{"IDN host", "https://Bücher.example/feed", "https://xn--bcher-kva.example/feed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SourceKey(tc.in)
			if err != nil || got != tc.want {
				t.Fatalf("SourceKey(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
	if _, err := SourceKey("ftp://news.example.com/feed"); err == nil {
		t.Fatal("an ftp URL has a source key")
	}
}
