package urls

import (
	"errors"
	"net/url"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"already canonical", "https://example.com/a/b?x=1", "https://example.com/a/b?x=1"},
		{"scheme and host lower-cased, path case kept", "HTTPS://Example.COM/Path/To", "https://example.com/Path/To"},
		{"surrounding space trimmed", "  https://example.com/a \n", "https://example.com/a"},
		{"http default port dropped", "http://example.com:80/a", "http://example.com/a"},
		{"https default port dropped", "https://example.com:443/a", "https://example.com/a"},
		{"non-default port kept", "https://example.com:8443/a", "https://example.com:8443/a"},
		{"port 443 on http is not default", "http://example.com:443/", "http://example.com:443/"},
		{"leading zeros of port", "http://example.com:0080/", "http://example.com/"},
		{"empty port", "http://example.com:/a", "http://example.com/a"},
		{"empty path becomes slash", "https://example.com", "https://example.com/"},
		{"fragment dropped", "https://example.com/a#section-2", "https://example.com/a"},
		{"utm parameters dropped", "https://example.com/a?utm_source=rss&utm_medium=feed&UTM_Campaign=x", "https://example.com/a"},
		{"click ids dropped, content kept", "https://example.com/a?id=7&fbclid=abc&gclid=def&msclkid=1&mc_cid=2&mc_eid=3&_ga=4&yclid=5&igshid=6&ref_src=twsrc", "https://example.com/a?id=7"},
		{"escaped tracking key still dropped", "https://example.com/a?utm%5Fsource=x&p=1", "https://example.com/a?p=1"},
		{"query sorted by key", "https://example.com/?b=2&a=1&c=3", "https://example.com/?a=1&b=2&c=3"},
		{"repeated keys kept and sorted by value", "https://example.com/?t=z&a=1&t=b&t=m", "https://example.com/?a=1&t=b&t=m&t=z"},
		{"identical pairs both kept", "https://example.com/?a=1&a=1", "https://example.com/?a=1&a=1"},
		{"empty pairs removed", "https://example.com/?&a=1&&b=2&", "https://example.com/?a=1&b=2"},
		{"key without value differs from empty value", "https://example.com/?b&a=", "https://example.com/?a=&b"},
		{"empty query removed", "https://example.com/a?", "https://example.com/a"},
		{"query of only tracking removed", "https://example.com/a?utm_source=x#top", "https://example.com/a"},
		{"dot segments", "https://example.com/a/./b/../c", "https://example.com/a/c"},
		{"dot dot above root", "https://example.com/../../a", "https://example.com/a"},
		{"trailing dot dot keeps directory", "https://example.com/a/b/..", "https://example.com/a/"},
		{"escaped dots are dot segments", "https://example.com/a/%2e%2E/b", "https://example.com/b"},
		{"double slash kept", "https://example.com/a//b", "https://example.com/a//b"},
		{"escapes upper-cased", "https://example.com/a%2fb?q=%c3%a9", "https://example.com/a%2Fb?q=%C3%A9"},
		{"escaped unreserved decoded", "https://example.com/%7Euser/%41%62%2D?k=%61", "https://example.com/~user/Ab-?k=a"},
		{"space and unicode in path escaped", "https://example.com/a b/é", "https://example.com/a%20b/%C3%A9"},
		{"stray percent escaped", "https://example.com/?q=100%25&r=5%", "https://example.com/?q=100%25&r=5%25"},
		{"plus kept as written", "https://example.com/?q=a+b", "https://example.com/?q=a+b"},
		{"escaped ampersand stays data", "https://example.com/?q=a%26b&a=1", "https://example.com/?a=1&q=a%26b"},
		{"IDN host to punycode", "https://Bücher.example/straße", "https://xn--bcher-kva.example/stra%C3%9Fe"},
		{"IDN host percent-encoded", "https://b%C3%BCcher.example/", "https://xn--bcher-kva.example/"},
		{"punycode host lower-cased", "https://XN--BCHER-KVA.example/", "https://xn--bcher-kva.example/"},
		{"trailing host dot dropped", "https://example.com./a", "https://example.com/a"},
		{"underscore host accepted", "https://my_host.example.com/", "https://my_host.example.com/"},
		{"IPv4 host", "http://127.0.0.1:8080/x", "http://127.0.0.1:8080/x"},
		{"IPv6 host canonical", "http://[2001:DB8:0:0::1]:80/", "http://[2001:db8::1]/"},
		{"empty userinfo dropped", "https://@example.com/", "https://example.com/"},
		{"userinfo kept", "https://user:pa%20ss@example.com/", "https://user:pa%20ss@example.com/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Normalize(tt.in)
			if err != nil {
				t.Fatalf("Normalize(%q) error: %v", tt.in, err)
			}
			if got != tt.want {
				t.Fatalf("Normalize(%q)\n got  %q\n want %q", tt.in, got, tt.want)
			}
			again, err := Normalize(got)
			if err != nil || again != got {
				t.Fatalf("not idempotent: Normalize(%q) = %q, %v", got, again, err)
			}
		})
	}
}

func TestNormalizeSameStoryDedups(t *testing.T) {
	// What dedup relies on: share links of one article collapse to one key.
	variants := []string{
		"https://www.example.com/news/2024/story?id=42",
		"HTTPS://WWW.EXAMPLE.COM:443/news/2024/story?id=42#comments",
		"https://www.example.com/news/2024/./story?utm_source=twitter&id=42&fbclid=IwAR0",
		"https://www.example.com/news/2024/x/../story?id=%34%32",
	}
	first, err := Normalize(variants[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range variants[1:] {
		got, err := Normalize(v)
		if err != nil {
			t.Fatalf("Normalize(%q): %v", v, err)
		}
		if got != first {
			t.Errorf("Normalize(%q) = %q, want %q", v, got, first)
		}
	}
}

func TestNormalizeKeepsDifferentArticlesApart(t *testing.T) {
	pairs := [][2]string{
		{"https://example.com/a?id=1", "https://example.com/a?id=2"},
		{"https://example.com/A", "https://example.com/a"},
		{"https://example.com/a/", "https://example.com/a"},
		{"http://example.com/a", "https://example.com/a"},
		{"https://example.com/a%2Fb", "https://example.com/a/b"},
		{"https://example.com/?ref=main", "https://example.com/?ref=dev"},
	}
	for _, p := range pairs {
		a, errA := Normalize(p[0])
		b, errB := Normalize(p[1])
		if errA != nil || errB != nil {
			t.Fatalf("errors: %v, %v", errA, errB)
		}
		if a == b {
			t.Errorf("%q and %q both normalised to %q", p[0], p[1], a)
		}
	}
}

func TestNormalizeErrors(t *testing.T) {
	tests := []struct {
		name, in string
		want     error
	}{
		{"mailto", "mailto:someone@example.com", ErrUnsupportedScheme},
		{"javascript", "javascript:alert(1)", ErrUnsupportedScheme},
		{"ftp", "ftp://example.com/file", ErrUnsupportedScheme},
		{"relative", "/just/a/path", ErrUnsupportedScheme},
		{"scheme-relative", "//example.com/a", ErrUnsupportedScheme},
		{"empty", "", ErrUnsupportedScheme},
		{"no host", "https:///path", ErrInvalidURL},
		{"opaque", "http:example.com", ErrInvalidURL},
		{"bad escape", "https://example.com/%zz", ErrInvalidURL},
		{"control character", "https://example.com/a\x00b", ErrInvalidURL},
		{"port out of range", "https://example.com:99999/", ErrInvalidURL},
		{"bad host character", "https://exa!mple.com/", ErrInvalidURL},
		{"only dots host", "https://.../", ErrInvalidURL},
		{"bad IPv6", "http://[::zz]/", ErrInvalidURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Normalize(tt.in)
			if err == nil {
				t.Fatalf("Normalize(%q) = %q, want error", tt.in, got)
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("Normalize(%q) error %v, want %v", tt.in, err, tt.want)
			}
		})
	}
}

func TestIsTrackingParam(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"utm_source", true}, {"UTM_TERM", true}, {"utm_anything_new", true},
		{"fbclid", true}, {"gclid", true}, {"dclid", true}, {"msclkid", true},
		{"mc_cid", true}, {"mc_eid", true}, {"_ga", true}, {"yclid", true},
		{"igshid", true}, {"ref_src", true}, {"hsCtaTracking", true},
		{"id", false}, {"ref", false}, {"page", false}, {"utm", false}, {"q", false},
	}
	for _, tt := range tests {
		if got := IsTrackingParam(tt.name); got != tt.want {
			t.Errorf("IsTrackingParam(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

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
