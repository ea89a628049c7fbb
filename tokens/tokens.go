// Package tokens counts LLM tokens exactly, for output that must fit a
// token budget (the compact digest). Counting is behind the Counter
// interface so that callers can swap the encoding, or share one counter
// with other stages, without depending on this implementation.
package tokens

import (
	"fmt"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// Counter counts the tokens of a text.
type Counter interface {
	Count(text string) int
}

// cl100kPattern is cl100k_base's pre-tokenisation expression, as the
// encoding defines it. The library keeps it inside an unexported
// constructor that reads a package-level loader; building the encoder
// here from the same parts avoids that shared mutable state.
const cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// cl100kSpecial are cl100k_base's special tokens. Count treats them as
// ordinary text, so they only matter for building the encoder.
var cl100kSpecial = map[string]int{
	tiktoken.ENDOFTEXT:   100257,
	tiktoken.FIM_PREFIX:  100258,
	tiktoken.FIM_MIDDLE:  100259,
	tiktoken.FIM_SUFFIX:  100260,
	tiktoken.ENDOFPROMPT: 100276,
}

// CL100K counts tokens with the cl100k_base encoding (GPT-4, GPT-3.5 and
// the text-embedding-3 models), from the vocabulary embedded in the
// binary: no network access. It is safe for concurrent use.
type CL100K struct {
	enc *tiktoken.Tiktoken
}

// NewCL100K loads the embedded cl100k_base vocabulary (about 100 000
// ranks; build it once per process and share it).
func NewCL100K() (*CL100K, error) {
	ranks, err := tiktokenloader.NewOfflineLoader().LoadTiktokenBpe("cl100k_base.tiktoken")
	if err != nil {
		return nil, fmt.Errorf("load cl100k_base vocabulary: %w", err)
	}
	bpe, err := tiktoken.NewCoreBPE(ranks, cl100kSpecial, cl100kPattern)
	if err != nil {
		return nil, fmt.Errorf("build cl100k_base encoder: %w", err)
	}
	enc := &tiktoken.Encoding{
		Name:           tiktoken.MODEL_CL100K_BASE,
		PatStr:         cl100kPattern,
		MergeableRanks: ranks,
		SpecialTokens:  cl100kSpecial,
	}
	special := make(map[string]any, len(cl100kSpecial))
	for k := range cl100kSpecial {
		special[k] = true
	}
	return &CL100K{enc: tiktoken.NewTiktoken(bpe, enc, special)}, nil
}

// Count is the number of cl100k_base tokens of text, special-token
// markers counted as the plain text they are.
func (c *CL100K) Count(text string) int {
	if text == "" {
		return 0
	}
	return len(c.enc.EncodeOrdinary(text))
}
