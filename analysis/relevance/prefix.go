package relevance

// stemPrefixes tells from the first two letters of an article's word
// whether its stem can be one a profile uses, so that scoring stems only
// the words that might match: most words of an article share no prefix
// with a profile's few stems, and stemming them was half of a score.
//
// It rests on what stem never changes. The stem of a lower-case ASCII
// word of three letters or more keeps the word's first two letters, or
// only its first when the stem has one letter: every step of Porter2
// either cuts the word shorter (which keeps what is left of its start) or
// rewrites letters at or after R1, which starts at the third letter at the
// earliest; Step 1b appends an "e" only to a stem of two letters or more;
// the "y" marked as a consonant is unmarked at the end. Only three of the
// exceptional forms rewrite the second letter (dying, lying, tying), and
// those are always stemmed. Words of two letters or fewer are their own
// stem.
type stemPrefixes struct {
	// pairs has bit 26*a+b for a stem that opens with letters a, b;
	// singles bit a for the stem of the one letter a.
	pairs   [(26*26 + 63) / 64]uint64
	singles uint32
	// twos has bit 26*a+b for the stem of the two letters a, b: a word of
	// two letters is its own stem, and most ("of", "to", "in") are none
	// of a profile's.
	twos [(26*26 + 63) / 64]uint64
}

// add notes a stem of the profile. A stem that does not open with two
// lower-case ASCII letters (or is not one) is never the stem of a word
// that gets stemmed.
func (p *stemPrefixes) add(stem string) {
	switch {
	case len(stem) == 1 && isLowerASCII(stem[0]):
		p.singles |= 1 << (stem[0] - 'a')
	case len(stem) >= 2 && isLowerASCII(stem[0]) && isLowerASCII(stem[1]):
		b := int(stem[0]-'a')*26 + int(stem[1]-'a')
		p.pairs[b/64] |= 1 << (b % 64)
		if len(stem) == 2 {
			p.twos[b/64] |= 1 << (b % 64)
		}
	}
}

// mayStemTo reports whether the stem of w, a word of lower-case ASCII
// letters, can be one of the stems added; false means it is none of them.
func (p *stemPrefixes) mayStemTo(w []byte) bool {
	switch {
	case len(w) == 1:
		// Its own stem.
		return p.singles&(1<<(w[0]-'a')) != 0
	case len(w) == 2:
		b := int(w[0]-'a')*26 + int(w[1]-'a')
		return p.twos[b/64]&(1<<(b%64)) != 0
	case len(w) == 0 || p.singles&(1<<(w[0]-'a')) != 0:
		return true
	}
	if w[1] == 'y' && len(w) == 5 {
		switch string(w) {
		case "dying", "lying", "tying":
			return true
		}
	}
	b := int(w[0]-'a')*26 + int(w[1]-'a')
	return p.pairs[b/64]&(1<<(b%64)) != 0
}

func isLowerASCII(c byte) bool { return 'a' <= c && c <= 'z' }
