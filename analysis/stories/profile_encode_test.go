package stories

import (
	"errors"
	"math"
	"reflect"
	"testing"
)

// A stored profile comes back with the same features, weights bit for
// bit (so re-examining a stored article weighs it as when it arrived),
// flags, and the words of the features asked to keep.
func TestProfileRoundTrip(t *testing.T) {
	archive := newSynthArchive(t, 3)
	for range 50 {
		title, body := archive.Article()
		p := NewProfile(title, body)
		keep := []uint32{p.Features[0].Term, p.Features[len(p.Features)-1].Term}
		b := EncodeProfile(&p, keep, 0, nil)
		got, err := DecodeProfile(b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Features, p.Features) {
			t.Fatalf("decoded features %v, want %v", got.Features, p.Features)
		}
		for i, w := range got.Words {
			want := ""
			if i == 0 || i == len(p.Features)-1 {
				want = p.Words[i]
			}
			if w != want {
				t.Fatalf("word %d %q, want %q", i, w, want)
			}
		}
		if len(b) > 7*len(p.Features)+40 {
			t.Errorf("a profile of %d features takes %d bytes", len(p.Features), len(b))
		}
	}
}

// A weight that is not of a profile's counted form is stored as it is.
func TestProfileKeepsOtherWeights(t *testing.T) {
	p := Profile{Features: []Feature{{Term: 3, Weight: 0.3}, {Term: 9, Weight: float32(1 + math.Log(2.5)), Flags: FlagName}, {Term: 12, Weight: 7.77}}}
	got, err := DecodeProfile(EncodeProfile(&p, nil, 0, nil))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Features, p.Features) {
		t.Errorf("decoded %v, want %v", got.Features, p.Features)
	}
}

func TestDecodeProfileRefusesCorruptForms(t *testing.T) {
	p := Profile{Features: []Feature{{Term: 3, Weight: 1}}, Words: []string{"ecb"}}
	good := EncodeProfile(&p, []uint32{3}, 0, nil)
	for name, b := range map[string][]byte{
		"empty":                  nil,
		"version 3":              append([]byte{3}, good[1:]...),
		"version 2 without IDFs": append([]byte{2, 1}, good[1:]...),
		"cut short":              good[:len(good)-1],
		"trailing byte":          append(good, 0),
	} {
		if _, err := DecodeProfile(b); !errors.Is(err, ErrEncoding) {
			t.Errorf("%s: err %v, want ErrEncoding", name, err)
		}
	}
}

// A version 2 profile keeps beside each feature its IDF, rounded to a
// sixteenth, and the number of articles the IDFs were computed over; it
// reads back as a version 1 profile does, the IDFs aside.
func TestProfileKeepsItsIDFs(t *testing.T) {
	archive := newSynthArchive(t, 4)
	vocab := NewVocabulary()
	for range 30 {
		p := NewProfile(archive.Article())
		vocab.Add(&p)
	}
	for range 20 {
		p := NewProfile(archive.Article())
		keep := []uint32{p.Features[0].Term}
		idfs := make([]float64, len(p.Features))
		for i, f := range p.Features {
			idfs[i] = IDF(vocab.DocFreq(f.Term)+1, vocab.Docs()+1)
		}
		v1, v2 := EncodeProfile(&p, keep, 0, nil), EncodeProfile(&p, keep, vocab.Docs()+1, idfs)
		got, docs, kept, err := DecodeProfileIDFs(v2)
		if err != nil {
			t.Fatal(err)
		}
		if docs != vocab.Docs()+1 {
			t.Errorf("kept %d articles, want %d", docs, vocab.Docs()+1)
		}
		if len(kept) != len(idfs) {
			t.Fatalf("%d IDFs kept, want %d", len(kept), len(idfs))
		}
		for i, x := range kept {
			if math.Abs(float64(x)-idfs[i]) > 1.0/32+1e-6 || x != RoundIDF(idfs[i]) {
				t.Errorf("feature %d: IDF %v kept as %v", i, idfs[i], x)
			}
		}
		old, docs1, none, err := DecodeProfileIDFs(v1)
		if err != nil || none != nil || docs1 != 0 {
			t.Fatalf("version 1: IDFs %v over %d articles, err %v; want none", none, docs1, err)
		}
		if !reflect.DeepEqual(got, old) {
			t.Errorf("version 2 decodes to %+v, version 1 to %+v", got, old)
		}
		if extra := len(v2) - len(v1); extra > len(p.Features)+3 {
			t.Errorf("the IDFs of %d features take %d bytes", len(p.Features), extra)
		}
	}
}

// IDFs beyond a byte's reach are kept at its end; none is negative.
func TestQuantizeIDF(t *testing.T) {
	for _, c := range []struct {
		idf  float64
		want uint8
	}{{0, 0}, {-1, 0}, {math.NaN(), 0}, {0.03, 0}, {0.04, 1}, {math.Ln2, 11}, {10, 160}, {15.9, 254}, {16, 255}, {40, 255}} {
		if got := QuantizeIDF(c.idf); got != c.want {
			t.Errorf("QuantizeIDF(%v) = %d, want %d", c.idf, got, c.want)
		}
	}
}

// TestHalfCountTableIsComputed: halfCount answers from its table what
// computing 2e^(w-1) answers, for every float32 weight the table covers
// and some beyond it, and a stored weight is weightOf.
func TestHalfCountTableIsComputed(t *testing.T) {
	for i := 1; i < len(tabledWeights); i++ {
		if !(tabledWeights[i] > tabledWeights[i-1]) {
			t.Fatalf("tabled weights %d and %d: %v, %v, not ascending", i, i+1, tabledWeights[i-1], tabledWeights[i])
		}
	}
	last := tabledWeights[len(tabledWeights)-1]
	step := uint32(1)
	if testing.Short() {
		step = 97 // a sample of the 27 million
	}
	n := 0
	for b := math.Float32bits(1); ; b += step {
		w := math.Float32frombits(b)
		if w > last {
			break
		}
		if got, want := halfCount(w), computedHalfCount(w); got != want {
			t.Fatalf("halfCount(%v) = %d, computed %d", w, got, want)
		}
		n++
	}
	for q := uint64(1); q < 20000; q++ {
		w := weightOf(q)
		if got, want := halfCount(w), computedHalfCount(w); w >= 1 && got != want {
			t.Fatalf("halfCount(%v) = %d, computed %d", w, got, want)
		}
		if storedWeight(q) != w {
			t.Fatalf("storedWeight(%d) = %v, want %v", q, storedWeight(q), w)
		}
	}
	for _, w := range []float32{0, 0.5, 0.99999994, float32(math.NaN()), float32(math.Inf(1)), 40, -1} {
		if got := halfCount(w); got != 0 {
			t.Fatalf("halfCount(%v) = %d, want 0", w, got)
		}
	}
	t.Logf("%d weights compared", n)
}
