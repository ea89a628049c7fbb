package tokens

import (
	"strings"
	"testing"
)

func BenchmarkTmpA64K(b *testing.B) {
	c, _ := For(CL100kBase)
	s := strings.Repeat("a", 64<<10)
	for i := 0; i < b.N; i++ {
		c.Count(s)
	}
}
func TestTmpMaxLen(t *testing.T) {
	c, _ := For(CL100kBase)
	m := 0
	for k := range c.vocab.rank { m = max(m, len(c.vocab.token(k))) }
	t.Log("max token len", m)
	for _, n := range []int{8,16,32,64,128} { t.Log(n, c.vocab.lookup(strings.Repeat("a", n))) }
}
