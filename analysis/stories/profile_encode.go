package stories

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// profileVersion is the stored form of an article's profile, kept so
// that re-examination can weigh a stored article again: the version
// byte, the number of features (uvarint), then per feature the term
// delta (uvarint, as in a centroid), its weight and its flags (one
// byte), then the number of words kept (uvarint) and per word the
// position of its feature (uvarint), its length (uvarint) and its bytes.
//
// A weight is 1 + ln(c) for a weighted count c that is a multiple of ½
// (every count NewProfile adds is), so it is written as the uvarint 2c,
// one byte for most features, and read back to the same float32; a
// weight that is not of that form is written as 0 and its float32
// (little endian). A profile of 96 features takes about 540 bytes
// instead of 840.
//
// Only the words of the features named when encoding are kept (an
// article's index terms): what a reason for moving the article shows of
// the terms it shares with its new story.
const profileVersion = 1

// EncodeProfile returns the stored form of a profile, with the words of
// the features words names.
func EncodeProfile(p *Profile, words []uint32) []byte {
	b := make([]byte, 0, 2+len(p.Features)*6)
	b = append(b, profileVersion)
	b = binary.AppendUvarint(b, uint64(len(p.Features)))
	prev := uint32(0)
	for _, f := range p.Features {
		b = binary.AppendUvarint(b, uint64(f.Term-prev))
		prev = f.Term
		if q := halfCount(f.Weight); q > 0 {
			b = binary.AppendUvarint(b, q)
		} else {
			b = append(b, 0)
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f.Weight))
		}
		b = append(b, f.Flags)
	}
	type kept struct {
		at   int
		word string
	}
	var ks []kept
	for _, t := range words {
		i, ok := slices.BinarySearchFunc(p.Features, t, func(f Feature, t uint32) int { return cmp.Compare(f.Term, t) })
		if ok && i < len(p.Words) && p.Words[i] != "" {
			ks = append(ks, kept{i, p.Words[i]})
		}
	}
	slices.SortFunc(ks, func(a, b kept) int { return cmp.Compare(a.at, b.at) })
	ks = slices.CompactFunc(ks, func(a, b kept) bool { return a.at == b.at })
	b = binary.AppendUvarint(b, uint64(len(ks)))
	for _, k := range ks {
		b = binary.AppendUvarint(b, uint64(k.at))
		b = binary.AppendUvarint(b, uint64(len(k.word)))
		b = append(b, k.word...)
	}
	return b
}

// halfCount is 2c for a weight 1 + ln(c) that is exactly that for a
// multiple c of ½, else 0.
func halfCount(w float32) uint64 {
	if !(w >= 1 && w < 40) { // NaN too; e^39 is far beyond any count
		return 0
	}
	q := math.Round(2 * math.Exp(float64(w)-1))
	if q < 1 || weightOf(uint64(q)) != w {
		return 0
	}
	return uint64(q)
}

// weightOf is the weight of the weighted count q/2.
func weightOf(q uint64) float32 { return float32(1 + math.Log(float64(q)/2)) }

// DecodeProfile reads a stored profile. Its Words are "" but for the
// features whose words were kept.
func DecodeProfile(b []byte) (Profile, error) {
	r := reader{b: b}
	if v := r.byte(); v != profileVersion {
		return Profile{}, fmt.Errorf("%w: profile version %d", ErrEncoding, v)
	}
	n := r.count(3)
	p := Profile{Features: make([]Feature, 0, n), Words: make([]string, n)}
	term := uint32(0)
	for i := range n {
		term = r.next(term, i == 0)
		f := Feature{Term: term}
		if q := r.uvarint(); q > 0 {
			f.Weight = weightOf(q)
		} else {
			f.Weight = math.Float32frombits(r.uint32())
		}
		f.Flags = r.byte()
		p.Features = append(p.Features, f)
	}
	words := r.count(2)
	for range words {
		at, size := r.uvarint(), r.uvarint()
		if at >= uint64(n) || size > uint64(len(r.b)) {
			r.err = true
			break
		}
		p.Words[at] = string(r.b[:size])
		r.b = r.b[size:]
	}
	if err := r.done("profile"); err != nil {
		return Profile{}, err
	}
	return p, nil
}
