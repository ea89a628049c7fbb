package extract

import (
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/feedpoller/feedpoller/analysis/tokens"
)

// referenceEncoder is tiktoken-go itself, the reference the stored counts
// must agree with token for token.
var referenceEncoder = sync.OnceValue(func() map[tokens.Encoding]*tiktoken.Tiktoken {
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	out := map[tokens.Encoding]*tiktoken.Tiktoken{}
	for _, enc := range []tokens.Encoding{tokens.CL100kBase, tokens.O200kBase} {
		t, err := tiktoken.GetEncoding(string(enc))
		if err != nil {
			panic(err)
		}
		out[enc] = t
	}
	return out
})

func referenceCount(enc tokens.Encoding, s string) int {
	return len(referenceEncoder()[enc].EncodeOrdinary(s))
}
