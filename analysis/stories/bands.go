package stories

// Locality-sensitive hashing. A sketch's MinHash values are cut into
// bands of a few rows; each band hashes to one key. Two articles whose
// sets have Jaccard similarity s share at least one key of a sketch with
// b bands of r rows with probability 1 − (1 − s^r)^b, so near-duplicates
// meet on a key while unrelated articles almost never do. The keys are
// what the index stores: finding candidates is one indexed lookup of an
// article's keys, whose cost follows the number of matches, not the size
// of the archive.
//
// Two sketches are banded. The terms sketch finds copies, edited copies
// and rewrites (their content words overlap by half or more); the lead
// sketch finds truncated copies, whose content words are only a part of
// the full text's but whose opening is the same. The whole-text shingle
// sketch is not banded: whatever it would find, the terms sketch finds
// too.
const (
	TermBands = 32
	TermRows  = 4
	LeadBands = 8
	LeadRows  = 4
	// MaxKeys is the number of band keys of a signature with both a lead
	// and enough content words.
	MaxKeys = TermBands + LeadBands
)

// Keys returns the band keys of the signature, as signed 64-bit integers
// (the type SQL BIGINT/INTEGER columns hold): terms bands first, then lead
// bands. A sketch too small to be compared adds none.
func (s *Signature) Keys() []int64 {
	if s.Empty() {
		return nil
	}
	return s.appendKeys(make([]int64, 0, MaxKeys))
}

// appendKeys appends the band keys of a non-empty signature to keys.
func (s *Signature) appendKeys(keys []int64) []int64 {
	if s.TermCount >= MinTerms {
		keys = appendBandKeys(keys, s.Terms[:], TermBands, TermRows, 1)
	}
	if s.LeadShingles >= MinLeadShingles {
		keys = appendBandKeys(keys, s.Lead[:], LeadBands, LeadRows, 2)
	}
	return keys
}

func appendBandKeys(dst []int64, values []uint32, bands, rows int, kind uint64) []int64 {
	for band := range bands {
		h := mix64(kind<<32 | uint64(band))
		for _, v := range values[band*rows : (band+1)*rows] {
			h = mix64(h ^ uint64(v))
		}
		dst = append(dst, int64(h))
	}
	return dst
}
