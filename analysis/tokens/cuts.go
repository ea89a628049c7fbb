package tokens

import "unicode/utf8"

// Cut is a place where a text can be cut without changing the count of
// what comes before it: Count(s[:End]) is Tokens.
type Cut struct{ End, Tokens int }

// Cuts lists, in order, the ends of the pre-tokeniser's pieces of s (and
// of the slices a piece longer than 64 KB is merged in), each with the
// tokens of s up to it, as long as they are at most budget. Tokens are
// counted per piece, so each cut's count is exact, and counting stops at
// the first piece that does not fit: the work is that of the prefix
// returned, not of s (a piece whose bytes alone prove it cannot fit is
// not even merged). s must be valid UTF-8; for any other text Cuts
// returns nil.
func (c *Counter) Cuts(s string, budget int) []Cut {
	if !utf8.ValidString(s) {
		return nil
	}
	var out []Cut
	n, prev := 0, 0
	var scratch mergeScratch
	for i := 0; i < len(s); {
		end := c.split(s, i)
		for start := i; start < end; {
			slice := s[start:min(end, start+maxMergePiece)]
			// A token is at most maxLen bytes long.
			if (len(slice)+c.vocab.maxLen-1)/c.vocab.maxLen > budget-n {
				return out
			}
			k := c.countPiece(slice, &scratch)
			if n+k > budget {
				return out
			}
			n += k
			start += len(slice)
			if start < end || end == len(s) || c.stableEnd(s[:end], prev, i) {
				out = append(out, Cut{End: start, Tokens: n})
			}
		}
		prev, i = i, end
	}
	return out
}

// stableEnd reports whether the text cut at the end of its last piece
// (which starts at last, after the piece starting at prev) splits into
// the same last two pieces: the pre-tokeniser looks one character ahead
// (a run of white space leaves its last character to the next piece), so
// where the text goes on can change how its end is split.
func (c *Counter) stableEnd(prefix string, prev, last int) bool {
	return (prev == last || c.split(prefix, prev) == last) && c.split(prefix, last) == len(prefix)
}
