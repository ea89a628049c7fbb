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
// (little endian). On the labelled story set (74 features a profile on
// average) a version 1 profile takes 536 bytes, a version 2 one 612.
//
// Only the words of the features named when encoding are kept (an
// article's index terms): what a reason for moving the article shows of
// the terms it shares with its new story.
//
// Version 2 adds, after the version byte, the number of articles the
// frequencies of the article's placement counted, its poll included
// (uvarint), and after each feature's flags the feature's IDF under them
// (one byte, see QuantizeIDF): what the stored frequencies give it once
// its save commits. Re-examination weighs a member's features whose
// frequencies its placement did not read with these while the archive
// has not grown much since, so that it need not read them. A version 1
// profile keeps no IDFs; its member's frequencies are read.
const (
	profileVersion1 = 1
	profileVersion  = 2
)

// idfSteps is how many steps of a quantised IDF make 1: a step of 1/16
// rounds an IDF by at most 1/32, and a byte reaches 255/16 ≈ 15.9, the
// IDF of a feature no article has among e^15.9 / 2 ≈ 4 million.
const idfSteps = 16

// QuantizeIDF is an IDF as a profile keeps it, in steps of 1/16, beyond
// 255 steps held at 255.
func QuantizeIDF(idf float64) uint8 {
	q := math.Round(idf * idfSteps)
	switch {
	case !(q > 0): // NaN too
		return 0
	case q >= math.MaxUint8:
		return math.MaxUint8
	}
	return uint8(q)
}

// keptIDF is the IDF a quantised one stands for.
func keptIDF(q uint8) float32 { return float32(q) / idfSteps }

// RoundIDF is an IDF as it comes back from a stored profile.
func RoundIDF(idf float64) float32 { return keptIDF(QuantizeIDF(idf)) }

// EncodeProfile returns the stored form of a profile, with the words of
// the features words names and, beside each feature, its IDF in idfs
// over an archive of docs articles (version 2). Without idfs it writes
// version 1, the form of the profiles stored before IDFs were kept.
func EncodeProfile(p *Profile, words []uint32, docs int, idfs []float64) []byte {
	version := byte(profileVersion)
	if idfs == nil {
		version = profileVersion1
	} else if len(idfs) != len(p.Features) {
		panic(fmt.Sprintf("stories: %d IDFs for %d features", len(idfs), len(p.Features)))
	}
	b := make([]byte, 0, 2+len(p.Features)*7)
	b = append(b, version)
	if idfs != nil {
		b = binary.AppendUvarint(b, uint64(max(docs, 0)))
	}
	b = binary.AppendUvarint(b, uint64(len(p.Features)))
	prev := uint32(0)
	for i, f := range p.Features {
		b = binary.AppendUvarint(b, uint64(f.Term-prev))
		prev = f.Term
		if q := halfCount(f.Weight); q > 0 {
			b = binary.AppendUvarint(b, q)
		} else {
			b = append(b, 0)
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f.Weight))
		}
		b = append(b, f.Flags)
		if idfs != nil {
			b = append(b, QuantizeIDF(idfs[i]))
		}
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
	if w <= tabledWeights[len(tabledWeights)-1] {
		// Within the table 2e^(w-1) is within 0.01 of the q whose
		// weight w is, so computing it would find the same q (a test
		// checks every float32 of the table's range).
		return uint64(weightSlots.find(w))
	}
	return computedHalfCount(w)
}

// tabledWeights holds weightOf(q) for q from 1 to 4096, ascending (and
// distinct): the weights of all but the longest articles' most frequent
// features, found without an exponential and a logarithm each.
var tabledWeights = func() []float32 {
	ws := make([]float32, 4096)
	for i := range ws {
		ws[i] = weightOf(uint64(i) + 1)
	}
	return ws
}()

// weightTable finds a tabled weight's q by the weight's bits: an
// open-addressing table twice the size of tabledWeights (a binary search
// of it cost most of what the exponential did).
type weightTable struct {
	bits [2 * 4096]uint32
	q    [2 * 4096]uint16
}

var weightSlots = func() *weightTable {
	t := &weightTable{}
	for i, w := range tabledWeights {
		s := t.slot(w)
		for t.q[s] != 0 {
			s = (s + 1) % len(t.q)
		}
		t.bits[s], t.q[s] = math.Float32bits(w), uint16(i+1)
	}
	return t
}()

func (t *weightTable) slot(w float32) int {
	return int(math.Float32bits(w) * 0x9E3779B1 >> 19) // the top 13 bits
}

// find is the q of a tabled weight w, 0 for another weight.
func (t *weightTable) find(w float32) uint16 {
	b := math.Float32bits(w)
	for s := t.slot(w); t.q[s] != 0; s = (s + 1) % len(t.q) {
		if t.bits[s] == b {
			return t.q[s]
		}
	}
	return 0
}

// computedHalfCount is halfCount for a weight in [1, 40).
func computedHalfCount(w float32) uint64 {
	q := math.Round(2 * math.Exp(float64(w)-1))
	if q < 1 || weightOf(uint64(q)) != w {
		return 0
	}
	return uint64(q)
}

// weightOf is the weight of the weighted count q/2.
func weightOf(q uint64) float32 { return float32(1 + math.Log(float64(q)/2)) }

// storedWeight is weightOf(q), from the table when it holds it.
func storedWeight(q uint64) float32 {
	if q-1 < uint64(len(tabledWeights)) {
		return tabledWeights[q-1]
	}
	return weightOf(q)
}

// DecodeProfile reads a stored profile, of either version. Its Words are
// "" but for the features whose words were kept.
func DecodeProfile(b []byte) (Profile, error) {
	p, _, _, err := DecodeProfileIDFs(b)
	return p, err
}

// DecodeProfileIDFs reads a stored profile, the IDFs kept beside its
// features (rounded) and the number of articles they were computed over
// (nil and 0 for a version 1 profile, which kept none).
func DecodeProfileIDFs(b []byte) (p Profile, docs int, idfs []float32, err error) {
	r := reader{b: b}
	v := r.byte()
	if v != profileVersion && v != profileVersion1 {
		return Profile{}, 0, nil, fmt.Errorf("%w: profile version %d", ErrEncoding, v)
	}
	perFeature := 3
	if v == profileVersion {
		perFeature = 4
		if d := r.uvarint(); d <= math.MaxInt32 {
			docs = int(d)
		} else {
			r.err = true
		}
	}
	n := r.count(perFeature)
	p = Profile{Features: make([]Feature, 0, n), Words: make([]string, n)}
	if v == profileVersion {
		idfs = make([]float32, 0, n)
	}
	term := uint32(0)
	for i := range n {
		term = r.next(term, i == 0)
		f := Feature{Term: term}
		if q := r.uvarint(); q > 0 {
			f.Weight = storedWeight(q)
		} else {
			f.Weight = math.Float32frombits(r.uint32())
		}
		f.Flags = r.byte()
		p.Features = append(p.Features, f)
		if idfs != nil {
			idfs = append(idfs, keptIDF(r.byte()))
		}
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
		return Profile{}, 0, nil, err
	}
	return p, docs, idfs, nil
}
