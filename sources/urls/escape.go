package urls

import "strings"

// charClass says which bytes may appear literally in one URL component.
type charClass func(c byte) bool

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func isSubDelim(c byte) bool {
	switch c {
	case '!', '$', '&', '\'', '(', ')', '*', '+', ',', ';', '=':
		return true
	}
	return false
}

// pathAllowed: pchar plus "/" (RFC 3986 §3.3).
func pathAllowed(c byte) bool {
	return isUnreserved(c) || isSubDelim(c) || c == ':' || c == '@' || c == '/'
}

// queryAllowed is for one key or value of the query: the RFC's query
// characters minus the pair delimiters "&" and "=" (which, when they are
// data, must stay escaped so that splitting stays unambiguous). "=" inside
// a value is tolerated by the caller, which splits at the first one only.
func queryAllowed(c byte) bool {
	return c != '&' && c != '=' && (pathAllowed(c) || c == '?')
}

// queryValueAllowed also keeps a literal "=" in a value.
func queryValueAllowed(c byte) bool {
	return c == '=' || queryAllowed(c)
}

const upperHex = "0123456789ABCDEF"

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// normalizeEscapes rewrites s so that every escape uses upper-case hex,
// escaped unreserved characters are decoded, a "%" that starts no valid
// escape is itself escaped, and any byte the component may not hold
// literally is escaped. The result is a fixed point: applying it again
// changes nothing.
func normalizeEscapes(s string, allowed charClass) string {
	if isCanonical(s, allowed) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) {
			hi, ok1 := unhex(s[i+1])
			lo, ok2 := unhex(s[i+2])
			if ok1 && ok2 {
				d := hi<<4 | lo
				if isUnreserved(d) {
					b.WriteByte(d)
				} else {
					b.WriteByte('%')
					b.WriteByte(upperHex[hi])
					b.WriteByte(upperHex[lo])
				}
				i += 2
				continue
			}
		}
		if c != '%' && allowed(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&15])
	}
	return b.String()
}

// isCanonical is the allocation-free fast path of normalizeEscapes: most
// URLs are already canonical.
func isCanonical(s string, allowed charClass) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 >= len(s) {
				return false
			}
			hi, lo := s[i+1], s[i+2]
			if !isUpperHex(hi) || !isUpperHex(lo) {
				return false
			}
			h, _ := unhex(hi)
			l, _ := unhex(lo)
			if isUnreserved(h<<4 | l) {
				return false
			}
			i += 2
			continue
		}
		if !allowed(c) {
			return false
		}
	}
	return true
}

func isUpperHex(c byte) bool {
	return '0' <= c && c <= '9' || 'A' <= c && c <= 'F'
}
