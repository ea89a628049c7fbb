package extract

import (
	"fmt"
	"sync"
	"unicode/utf8"
)

// Encoding names a BPE vocabulary whose tokens Stats counts.
type Encoding string

// The two vocabularies counted for every article: cl100k_base (GPT-4,
// GPT-3.5, the text-embedding-3 models) and o200k_base (GPT-4o, GPT-4.1
// and later).
const (
	CL100kBase Encoding = "cl100k_base"
	O200kBase  Encoding = "o200k_base"
)

// TokenCounter counts the tokens of text exactly as tiktoken does for one
// encoding. It is safe for concurrent use.
type TokenCounter struct {
	enc   Encoding
	vocab *vocab
	split func(s string, i int) int
}

// Each vocabulary is decoded on first use and then kept for the life of
// the process: processes that never count tokens (`feedpoller version`,
// migrations) never pay for it.
var (
	cl100kCounter = sync.OnceValues(func() (*TokenCounter, error) { return newTokenCounter(CL100kBase) })
	o200kCounter  = sync.OnceValues(func() (*TokenCounter, error) { return newTokenCounter(O200kBase) })
)

// Counter returns the token counter of an encoding, loading its
// vocabulary on first use.
func Counter(enc Encoding) (*TokenCounter, error) {
	switch enc {
	case CL100kBase:
		return cl100kCounter()
	case O200kBase:
		return o200kCounter()
	}
	return nil, fmt.Errorf("token counter: unknown encoding %q", enc)
}

func newTokenCounter(enc Encoding) (*TokenCounter, error) {
	v, err := loadVocab(enc)
	if err != nil {
		return nil, err
	}
	c := &TokenCounter{enc: enc, vocab: v, split: nextPieceCL100k}
	if enc == O200kBase {
		c.split = nextPieceO200k
	}
	return c, nil
}

// Encoding reports which vocabulary c counts.
func (c *TokenCounter) Encoding() Encoding { return c.enc }

// Count returns the number of tokens of s, as tiktoken's encode_ordinary
// gives it: special tokens such as "<|endoftext|>" are counted as the
// ordinary text they are. Invalid UTF-8 is counted as U+FFFD, one per
// invalid byte, as the reference implementation reads it.
func (c *TokenCounter) Count(s string) int {
	if !utf8.ValidString(s) {
		s = string([]rune(s))
	}
	n := 0
	var scratch mergeScratch
	for i := 0; i < len(s); {
		end := c.split(s, i)
		n += c.vocab.countPiece(s[i:end], &scratch)
		i = end
	}
	return n
}
