package stories

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Signature sizes. Changing any of them changes every signature and band
// key: stored signatures must then be recomputed (SignatureVersion tells
// them apart).
const (
	// ShingleWords is the length of the word sequences (shingles) that are
	// compared: three words keep "earthquake struck off" apart from
	// "struck off Taiwan" while tolerating the odd changed word.
	ShingleWords = 3
	// BodyHashes is the number of MinHash values over the whole text.
	BodyHashes = 128
	// LeadWords is how many opening words of the body form the lead: what a
	// truncated feed copy keeps of an article.
	LeadWords = 40
	// LeadHashes is the number of MinHash values over the lead.
	LeadHashes = 32
	// TermHashes is the number of MinHash values over the set of content
	// words (the text's words without stop words): what a light rewrite
	// keeps while changing most word sequences.
	TermHashes = 128
	// NumberHashes is how many number hashes a signature keeps (the
	// smallest ones: a bottom-k sketch, exact for up to this many
	// distinct numbers).
	NumberHashes = 32
	// SignatureVersion is written first in MarshalBinary.
	SignatureVersion = 1
)

// Signature is the compact fingerprint of one article that story
// detection compares: MinHash sketches of the word shingles of the whole
// text (title and body), of the shingles of the body's lead, and of the
// set of content words, with the size of each set. It is computed once,
// when the article is stored.
type Signature struct {
	Body  [BodyHashes]uint32
	Lead  [LeadHashes]uint32
	Terms [TermHashes]uint32
	// Numbers holds the smallest hashes of the distinct words that contain
	// a digit (figures, versions, dates, identifiers such as CVE numbers),
	// ascending; the first min(NumberCount, NumberHashes) are set.
	Numbers [NumberHashes]uint32
	// BodyShingles, LeadShingles, TermCount and NumberCount count distinct
	// elements; BodyShingles 0 means the text had no words, and such a
	// signature matches nothing.
	BodyShingles uint32
	LeadShingles uint32
	TermCount    uint32
	NumberCount  uint32
}

// minhash permutations: shingle hashes are 64-bit, each permutation is
// x ↦ a·x + b (mod 2^64) with a odd, and the top 32 bits are kept. The
// constants come from a fixed SplitMix64 stream, so signatures are equal
// across processes, machines and versions of Go.
type permutations struct {
	a, b []uint64
}

func newPermutations(n int, seed uint64) permutations {
	p := permutations{a: make([]uint64, n), b: make([]uint64, n)}
	s := seed
	for i := range n {
		s, p.a[i] = splitmix64(s)
		s, p.b[i] = splitmix64(s)
		p.a[i] |= 1
	}
	return p
}

var (
	bodyPerm = newPermutations(BodyHashes, 0x5d6f_3c2a_9b1e_4f07)
	leadPerm = newPermutations(LeadHashes, 0x1f83_d9ab_fb41_bd6b)
	termPerm = newPermutations(TermHashes, 0x6a09_e667_f3bc_c908)
)

func splitmix64(s uint64) (next, out uint64) {
	s += 0x9e3779b97f4a7c15
	z := s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return s, z ^ (z >> 31)
}

func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Sign computes the signature of an article from its title and its body
// (Markdown or plain text). Site furniture is left out first (see
// StripFurniture). The result depends on nothing but the two texts.
func Sign(title, body string) Signature {
	var numbers []uint64
	wh := wordHasher{numbers: &numbers}
	words := wh.appendWords(nil, title)
	titleWords := len(words)
	for _, line := range StripFurniture(body) {
		words = wh.appendWords(words, line)
	}
	var sig Signature
	lead := words[titleWords:]
	if len(lead) > LeadWords {
		lead = lead[:LeadWords]
	}
	sig.BodyShingles = sketch(sig.Body[:], shingles(words), bodyPerm)
	sig.LeadShingles = sketch(sig.Lead[:], shingles(lead), leadPerm)
	sig.TermCount = sketch(sig.Terms[:], terms(words), termPerm)
	sig.NumberCount = bottomK(sig.Numbers[:], numbers)
	return sig
}

// bottomK fills out with the smallest distinct 32-bit hashes of the words
// ws, ascending, and returns how many distinct hashes there were.
func bottomK(out []uint32, ws []uint64) uint32 {
	hs := make([]uint32, len(ws))
	for i, w := range ws {
		hs[i] = uint32(mix64(w) >> 32)
	}
	slices.Sort(hs)
	hs = slices.Compact(hs)
	copy(out, hs)
	return uint32(len(hs))
}

// shingles returns the hashes of every run of ShingleWords words; fewer
// words than that make one shingle of all of them.
func shingles(words []uint64) []uint64 {
	if len(words) == 0 {
		return nil
	}
	n := max(1, len(words)-ShingleWords+1)
	sh := make([]uint64, 0, n)
	for i := range n {
		h := uint64(0)
		for j := i; j < i+ShingleWords && j < len(words); j++ {
			h = h*0x100000001b3 + words[j]
		}
		sh = append(sh, mix64(h))
	}
	return sh
}

// terms returns the hashes of the words that are not stop words.
func terms(words []uint64) []uint64 {
	out := make([]uint64, 0, len(words))
	for _, w := range words {
		if _, stop := stopWords[w]; !stop {
			out = append(out, mix64(w))
		}
	}
	return out
}

// sketch fills out with the MinHash values of the set of hashes sh (which
// it sorts) and returns the number of distinct elements.
func sketch(out []uint32, sh []uint64, perm permutations) uint32 {
	for i := range out {
		out[i] = math.MaxUint32
	}
	slices.Sort(sh)
	sh = slices.Compact(sh)
	for _, x := range sh {
		for i := range out {
			if v := uint32((perm.a[i]*x + perm.b[i]) >> 32); v < out[i] {
				out[i] = v
			}
		}
	}
	return uint32(len(sh))
}

// Empty reports whether the signature came from a text without words.
func (s *Signature) Empty() bool { return s.BodyShingles == 0 }

// signatureBytes is the size of MarshalBinary's output.
const signatureBytes = 1 + 4*(BodyHashes+LeadHashes+TermHashes+NumberHashes) + 16

// MarshalBinary encodes the signature for storage (a BLOB / bytea column):
// a version byte, then every value little-endian.
func (s *Signature) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, signatureBytes)
	b = append(b, SignatureVersion)
	for _, v := range s.Body {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	for _, v := range s.Lead {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	for _, v := range s.Terms {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	for _, v := range s.Numbers {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	b = binary.LittleEndian.AppendUint32(b, s.BodyShingles)
	b = binary.LittleEndian.AppendUint32(b, s.LeadShingles)
	b = binary.LittleEndian.AppendUint32(b, s.TermCount)
	b = binary.LittleEndian.AppendUint32(b, s.NumberCount)
	return b, nil
}

// ErrSignatureVersion is returned for a stored signature made by another
// version of the algorithm; it must be recomputed from the article.
var ErrSignatureVersion = errors.New("story signature of another version")

// UnmarshalBinary decodes what MarshalBinary wrote.
func (s *Signature) UnmarshalBinary(b []byte) error {
	if len(b) > 0 && b[0] != SignatureVersion {
		return fmt.Errorf("decode story signature: version %d, want %d: %w", b[0], SignatureVersion, ErrSignatureVersion)
	}
	if len(b) != signatureBytes {
		return fmt.Errorf("decode story signature: %d bytes, want %d", len(b), signatureBytes)
	}
	b = b[1:]
	for i := range s.Body {
		s.Body[i] = binary.LittleEndian.Uint32(b)
		b = b[4:]
	}
	for i := range s.Lead {
		s.Lead[i] = binary.LittleEndian.Uint32(b)
		b = b[4:]
	}
	for i := range s.Terms {
		s.Terms[i] = binary.LittleEndian.Uint32(b)
		b = b[4:]
	}
	for i := range s.Numbers {
		s.Numbers[i] = binary.LittleEndian.Uint32(b)
		b = b[4:]
	}
	s.BodyShingles = binary.LittleEndian.Uint32(b)
	s.LeadShingles = binary.LittleEndian.Uint32(b[4:])
	s.TermCount = binary.LittleEndian.Uint32(b[8:])
	s.NumberCount = binary.LittleEndian.Uint32(b[12:])
	return nil
}
