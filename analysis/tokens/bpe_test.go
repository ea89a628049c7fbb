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
