package urls

import (
	"encoding/base64"
	"encoding/binary"
	"strings"
	"testing"
)

// oldFormatID builds an id the way Google News' older links do: prefix
// 08 13 22, the URL as a varint-length-prefixed string, then a trailer.
func oldFormatID(payload string) []byte {
	b := []byte{0x08, 0x13, 0x22}
	b = binary.AppendUvarint(b, uint64(len(payload)))
	b = append(b, payload...)
	return append(b, 0xd2, 0x01, 0x00)
}

func TestResolveGoogleNews(t *testing.T) {
	publisher := "https://www.example.com/world/2024/05/01/some-story.html?id=9"
	long := "https://news.example.org/" + strings.Repeat("segment/", 30) + "end" // needs a 2-byte length
	raw := base64.RawURLEncoding
	padded := base64.URLEncoding

	// A wrapped blob: extra field first, URL later, so only the scan finds it.
	wrapped := append([]byte{0x0a, 0x02, 0x41, 0x42, 0x12, 0x20}, "http://example.net/a-b_c~d/e?f=g"...)
	wrapped = append(wrapped, 0x00, 0xff)

	tests := []struct {
		name, link, want string
	}{
		{"rss article, old format", "https://news.google.com/rss/articles/" + raw.EncodeToString(oldFormatID(publisher)) + "?oc=5", publisher},
		{"article path", "https://news.google.com/articles/" + raw.EncodeToString(oldFormatID(publisher)) + "?hl=en-US&gl=US", publisher},
		{"padded id", "https://news.google.com/rss/articles/" + padded.EncodeToString(oldFormatID("http://a.example/x")) + "?oc=5", "http://a.example/x"},
		{"host case ignored", "https://NEWS.Google.com/rss/articles/" + raw.EncodeToString(oldFormatID(publisher)), publisher},
		{"long url, two-byte length", "https://news.google.com/rss/articles/" + raw.EncodeToString(oldFormatID(long)) + "?oc=5", long},
		{"url found by scan", "https://news.google.com/rss/articles/" + raw.EncodeToString(wrapped), "http://example.net/a-b_c~d/e?f=g"},
		{"new format id kept", "https://news.google.com/rss/articles/AU_yqLPx1bQ2cD3eF4gH5iJ6kL7?oc=5", "https://news.google.com/rss/articles/AU_yqLPx1bQ2cD3eF4gH5iJ6kL7?oc=5"},
		{"new format token wrapped in prefix kept", "https://news.google.com/rss/articles/" + raw.EncodeToString(oldFormatID("AU_yqLNw9xq1rhttps://evil.example")) + "?oc=5", "https://news.google.com/rss/articles/" + raw.EncodeToString(oldFormatID("AU_yqLNw9xq1rhttps://evil.example")) + "?oc=5"},
		{"not base64 kept", "https://news.google.com/rss/articles/!!!notbase64?oc=5", "https://news.google.com/rss/articles/!!!notbase64?oc=5"},
		{"no url inside kept", "https://news.google.com/rss/articles/" + raw.EncodeToString(oldFormatID("ftp://files.example/x")), "https://news.google.com/rss/articles/" + raw.EncodeToString(oldFormatID("ftp://files.example/x"))},
		{"unparsable embedded url kept", "https://news.google.com/rss/articles/" + raw.EncodeToString(oldFormatID("http://[::1")), "https://news.google.com/rss/articles/" + raw.EncodeToString(oldFormatID("http://[::1"))},
		{"hostless embedded url kept", "https://news.google.com/rss/articles/" + raw.EncodeToString(oldFormatID("http:///nohost")), "https://news.google.com/rss/articles/" + raw.EncodeToString(oldFormatID("http:///nohost"))},
		{"other google news page kept", "https://news.google.com/topics/CAAqJggKIiBDQkFTRWdvSUwyMHZNRGx1YlY4U0FtVnVHZ0pWVXlnQVAB", "https://news.google.com/topics/CAAqJggKIiBDQkFTRWdvSUwyMHZNRGx1YlY4U0FtVnVHZ0pWVXlnQVAB"},
		{"other host kept", "https://example.com/rss/articles/" + raw.EncodeToString(oldFormatID(publisher)), "https://example.com/rss/articles/" + raw.EncodeToString(oldFormatID(publisher))},
		{"empty id kept", "https://news.google.com/rss/articles/", "https://news.google.com/rss/articles/"},
		{"garbage kept", "::not a url::", "::not a url::"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ResolveGoogleNews(tt.link); got != tt.want {
				t.Fatalf("ResolveGoogleNews(%q)\n got  %q\n want %q", tt.link, got, tt.want)
			}
		})
	}
}

func TestResolveGoogleNewsThenNormalize(t *testing.T) {
	// The pipeline order: resolve, then normalise for dedup.
	link := "https://news.google.com/rss/articles/" +
		base64.RawURLEncoding.EncodeToString(oldFormatID("https://Example.com/story?utm_source=google&id=1#x")) + "?oc=5"
	got, err := Normalize(ResolveGoogleNews(link))
	if err != nil {
		t.Fatal(err)
	}
	if want := "https://example.com/story?id=1"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func FuzzResolveGoogleNews(f *testing.F) {
	f.Add(oldFormatID("https://example.com/a"))
	f.Add([]byte("AU_yqL"))
	f.Add([]byte{0x08, 0x13, 0x22, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, blob []byte) {
		link := "https://news.google.com/rss/articles/" + base64.RawURLEncoding.EncodeToString(blob) + "?oc=5"
		got := ResolveGoogleNews(link)
		if got != link && !strings.HasPrefix(got, "http://") && !strings.HasPrefix(got, "https://") {
			t.Fatalf("resolved to a non-http URL %q", got)
		}
	})
}
