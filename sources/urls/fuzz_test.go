package urls

import (
	"net/url"
	"strings"
	"testing"
)

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"https://example.com/a?utm_source=x&b=2&a=1#f",
		"HTTP://Example.COM:80/%7e/./../a%2fb?%41=%zz&&q=a+b",
		"https://Bücher.example./straße?x=é",
		"http://[2001:DB8::1]:8080/",
		"http://u:p@h/",
		"https://b%C3%BCcher.example/",
		"http://example.com/a/b/..",
		"http://example.com/?a&a=&=a",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := Normalize(in)
		if err != nil {
			return
		}
		u, perr := url.Parse(out)
		if perr != nil {
			t.Fatalf("Normalize(%q) = %q, which does not parse: %v", in, out, perr)
		}
		if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Fragment != "" {
			t.Fatalf("Normalize(%q) = %q: bad scheme, host or fragment", in, out)
		}
		if strings.Contains(out, "#") {
			t.Fatalf("Normalize(%q) = %q keeps a fragment", in, out)
		}
		again, err := Normalize(out)
		if err != nil {
			t.Fatalf("Normalize(%q) = %q, which then fails: %v", in, out, err)
		}
		if again != out {
			t.Fatalf("not idempotent for %q:\n once  %q\n twice %q", in, out, again)
		}
	})
}
