package poller

import (
	"crypto/md5"
	"encoding/hex"
	"strings"
	"unicode"
)

// contentHash is the MD5 of an article's normalised text: lower-cased
// letters and digits, one space between words. Markup, punctuation and
// spacing differences between two feeds carrying one story do not change
// it, so the cross-source duplicate guard sees through them.
func contentHash(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	space := false
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
		} else {
			space = true
		}
	}
	if b.Len() == 0 {
		return ""
	}
	sum := md5.Sum([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}
