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
		"empty":         nil,
		"version 2":     append([]byte{2}, good[1:]...),
		"cut short":     good[:len(good)-1],
		"trailing byte": append(good, 0),
	} {
		if _, err := DecodeProfile(b); !errors.Is(err, ErrEncoding) {
			t.Errorf("%s: err %v, want ErrEncoding", name, err)
		}
	}
}
