package tokens

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"strconv"
	"testing"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// TestLookupEveryToken looks up every token of both vocabularies, as the
// files list them, in the packed rank table: each must come back with
// its own rank, and each with one more byte must not be found with it.
func TestLookupEveryToken(t *testing.T) {
	for _, enc := range []Encoding{CL100kBase, O200kBase} {
		v := mustCounter(t, enc).vocab
		f, err := assets.Assets.Open(string(enc) + ".tiktoken")
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		n := 0
		for sc.Scan() {
			fields := bytes.Fields(sc.Bytes())
			tok, err := base64.StdEncoding.DecodeString(string(fields[0]))
			if err != nil {
				t.Fatal(err)
			}
			rank, err := strconv.Atoi(string(fields[1]))
			if err != nil {
				t.Fatal(err)
			}
			if got := v.lookup(string(tok)); got != rank {
				t.Fatalf("%s: lookup(%q) = %d, want %d", enc, tok, got, rank)
			}
			if got := v.lookup(string(tok) + "\x00"); got == rank {
				t.Fatalf("%s: lookup(%q + NUL) found the token itself", enc, tok)
			}
			n++
		}
		f.Close()
		if n < 100000 {
			t.Fatalf("%s: only %d tokens read", enc, n)
		}
	}
}

// TestShortKeyPacksEveryByte checks the word loads of shortKey against
// the layout spelled out byte by byte: the first eight bytes in lo, the
// rest in hi, the first byte lowest, zero-padded, and the length.
func TestShortKeyPacksEveryByte(t *testing.T) {
	s := "\x01\x82\x03\xf4\x05\x86\x07\xf8\x09\x8a\x0b\xfc"
	for n := 3; n <= shortMaxLen; n++ {
		var lo, hi uint64
		for j := range n {
			if j < 8 {
				lo |= uint64(s[j]) << (8 * j)
			} else {
				hi |= uint64(s[j]) << (8 * (j - 8))
			}
		}
		hi |= uint64(n) << shortLenShift
		if gotLo, gotHi := shortKey(s[:n]); gotLo != lo || gotHi != hi {
			t.Errorf("shortKey(%q) = %#x, %#x, want %#x, %#x", s[:n], gotLo, gotHi, lo, hi)
		}
	}
}
