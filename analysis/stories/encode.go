package stories

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Stored forms of what grouping keeps in the database. Each starts with
// a version byte, so a later layout can be told from this one; terms are
// written in increasing order as the difference from the previous term
// (a varint), which takes 3–4 bytes for a 30-bit hash.
const (
	// centroidVersion1: then the number of features (uvarint), then per
	// feature the term delta (uvarint), the weight (float32, little
	// endian) and the flags (one byte). The article count is not in it:
	// the stories table keeps it as a column. Still read; written only
	// for a centroid without IDFs.
	centroidVersion1 = 1
	// centroidVersion: as version 1, and after each feature's flags the
	// IDF it was last weighed with (float32, little endian).
	centroidVersion = 2
)

// ErrEncoding is the error of a stored form that cannot be read.
var ErrEncoding = errors.New("stories: unreadable stored form")

// EncodeCentroid returns the stored form of a centroid's features and
// their IDFs.
func EncodeCentroid(c Centroid) []byte {
	withIDFs := len(c.IDFs) == len(c.Features) && c.IDFs != nil
	b := make([]byte, 0, 2+len(c.Features)*13)
	if withIDFs {
		b = append(b, centroidVersion)
	} else {
		b = append(b, centroidVersion1)
	}
	b = binary.AppendUvarint(b, uint64(len(c.Features)))
	prev := uint32(0)
	for i, f := range c.Features {
		b = binary.AppendUvarint(b, uint64(f.Term-prev))
		prev = f.Term
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f.Weight))
		b = append(b, f.Flags)
		if withIDFs {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(c.IDFs[i]))
		}
	}
	return b
}

// DecodeCentroid reads a stored centroid of a story of articles articles.
// A centroid stored in version 1 comes back without IDFs.
func DecodeCentroid(b []byte, articles int) (Centroid, error) {
	r := reader{b: b}
	v := r.byte()
	if v != centroidVersion && v != centroidVersion1 {
		return Centroid{}, fmt.Errorf("%w: centroid version %d", ErrEncoding, v)
	}
	withIDFs := v == centroidVersion
	minBytes := 6
	if withIDFs {
		minBytes = 10
	}
	n := r.count(minBytes)
	c := Centroid{Features: make([]Feature, 0, n), Articles: articles}
	if withIDFs {
		c.IDFs = make([]float32, 0, n)
	}
	if withIDFs {
		// A placement decodes hundreds of centroids: each feature is read
		// with one bounds check rather than one a field.
		c.Features, c.IDFs = c.Features[:n], c.IDFs[:n]
		r.err = r.err || !decodeWithIDFs(r.b, c.Features, c.IDFs)
		r.b = nil
		if err := r.done("centroid"); err != nil {
			return Centroid{}, err
		}
		return c, nil
	}
	term := uint32(0)
	for i := range n {
		term = r.next(term, i == 0)
		w := math.Float32frombits(r.uint32())
		c.Features = append(c.Features, Feature{Term: term, Weight: w, Flags: r.byte()})
		if withIDFs {
			idf := math.Float32frombits(r.uint32())
			if !(idf >= 0 && idf <= math.MaxFloat32) { // NaN too
				r.err = true
			}
			c.IDFs = append(c.IDFs, idf)
		}
	}
	if err := r.done("centroid"); err != nil {
		return Centroid{}, err
	}
	return c, nil
}

// decodeWithIDFs reads the features of a version 2 centroid into fs and
// idfs (as long as its count), as the reader reads them one field after
// another, and reports whether b held exactly those, well formed.
func decodeWithIDFs(b []byte, fs []Feature, idfs []float32) bool {
	term := uint32(0)
	for i := range fs {
		v, k := binary.Uvarint(b)
		if k <= 0 || len(b)-k < 9 || v > math.MaxUint32-uint64(term) || v == 0 && i > 0 {
			return false
		}
		term += uint32(v)
		b = b[k:]
		idf := math.Float32frombits(binary.LittleEndian.Uint32(b[5:9]))
		if !(idf >= 0 && idf <= math.MaxFloat32) { // NaN too
			return false
		}
		fs[i] = Feature{Term: term, Weight: math.Float32frombits(binary.LittleEndian.Uint32(b[:4])), Flags: b[4]}
		idfs[i] = idf
		b = b[9:]
	}
	return len(b) == 0
}

// reader reads a stored form, remembering the first problem.
type reader struct {
	b   []byte
	err bool
}

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.err = true
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = true
		r.b = nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

// next reads the term after prev: its difference from prev, which keeps
// the terms increasing (the first may be 0).
func (r *reader) next(prev uint32, first bool) uint32 {
	v := r.uvarint()
	if v > math.MaxUint32-uint64(prev) || v == 0 && !first {
		r.err = true
	}
	return prev + uint32(v)
}

// count reads a number of entries of at least minBytes each, bounded by
// what is left, so a corrupt count cannot make a huge allocation.
func (r *reader) count(minBytes int) int {
	n := r.uvarint()
	if n > uint64(len(r.b)/minBytes) {
		r.err = true
		return 0
	}
	return int(n)
}

func (r *reader) uint32() uint32 {
	if len(r.b) < 4 {
		r.err = true
		r.b = nil
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}

func (r *reader) done(what string) error {
	if r.err || len(r.b) != 0 {
		return fmt.Errorf("%w: %s", ErrEncoding, what)
	}
	return nil
}
