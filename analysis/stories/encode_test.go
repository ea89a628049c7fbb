package stories

import (
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"testing"
)

// A centroid comes back from its stored form as it was written: features,
// flags and the IDF each was weighed with.
func TestCentroidRoundTrip(t *testing.T) {
	c := Centroid{
		Features: []Feature{{Term: 3, Weight: 0.5, Flags: FlagName}, {Term: 1 << 29, Weight: 1.25, Flags: FlagNumber}},
		IDFs:     []float32{2.5, 7.125},
		Articles: 4,
	}
	got, err := DecodeCentroid(EncodeCentroid(c), 4)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, c) {
		t.Errorf("decoded %+v, want %+v", got, c)
	}
}

// A centroid stored before IDFs were kept (version 1) still reads, without
// IDFs, so that Group weighs it with the current frequencies.
func TestCentroidVersion1StillReads(t *testing.T) {
	v1 := []byte{1, 2, 3, 0, 0, 0, 0x3f, FlagName, 5, 0, 0, 0xa0, 0x3f, 0}
	got, err := DecodeCentroid(v1, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := Centroid{Features: []Feature{{Term: 3, Weight: 0.5, Flags: FlagName}, {Term: 8, Weight: 1.25}}, Articles: 2}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %+v, want %+v", got, want)
	}
	if back := EncodeCentroid(got); string(back) != string(v1) {
		t.Errorf("a centroid without IDFs encodes as % x, want version 1 % x", back, v1)
	}
}

func TestDecodeCentroidRefusesCorruptForms(t *testing.T) {
	good := EncodeCentroid(Centroid{Features: []Feature{{Term: 3, Weight: 0.5}}, IDFs: []float32{2}})
	nan := EncodeCentroid(Centroid{Features: []Feature{{Term: 3, Weight: 0.5}}, IDFs: []float32{float32(math.NaN())}})
	// good: the version, the count, then the one feature: its term delta
	// (one byte) and 9 bytes of weight, flags and IDF.
	negative := EncodeCentroid(Centroid{Features: []Feature{{Term: 3, Weight: 0.5}}, IDFs: []float32{-1}})
	for name, b := range map[string][]byte{
		"empty":         nil,
		"version 3":     append([]byte{3}, good[1:]...),
		"cut short":     good[:len(good)-1],
		"trailing byte": append(good, 0),
		"NaN IDF":       nan,
		"negative IDF":  negative,
		"repeated term": append(append([]byte{centroidVersion, 2}, good[2:]...), append([]byte{0}, good[3:]...)...),
		"past 32 bits": append(append(binary.AppendUvarint([]byte{centroidVersion, 2}, math.MaxUint32), good[3:]...),
			append([]byte{1}, good[3:]...)...),
	} {
		if _, err := DecodeCentroid(b, 1); !errors.Is(err, ErrEncoding) {
			t.Errorf("%s: err %v, want ErrEncoding", name, err)
		}
	}
}
