package store

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestAppendTerms: the list parser reads what termList writes, skips
// empty fields, and names a field that is no unsigned 32-bit integer,
// from a string or from the driver's bytes alike.
func TestAppendTerms(t *testing.T) {
	for _, tc := range []struct {
		list    string
		want    []uint32
		wantErr string
	}{
		{"", nil, ""},
		{"7", []uint32{7}, ""},
		{"0,4294967295,12", []uint32{0, 4294967295, 12}, ""},
		{"1,,2,", []uint32{1, 2}, ""},
		{"007", []uint32{7}, ""},
		{"1,4294967296", []uint32{1}, `"4294967296"`},
		{"1,99999999999999999999999,3", []uint32{1}, `"99999999999999999999999"`},
		{"1, 2", []uint32{1}, `" 2"`},
		{"1,-2", []uint32{1}, `"-2"`},
		{"1,2x,3", []uint32{1}, `"2x"`},
		{"+3", nil, `"+3"`},
	} {
		for _, from := range []string{"string", "bytes"} {
			var got []uint32
			var err error
			if from == "string" {
				got, err = appendTerms(nil, tc.list)
			} else {
				got, err = appendTerms(nil, []byte(tc.list))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("appendTerms(%q) from %s = %v, want %v", tc.list, from, got, tc.want)
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("appendTerms(%q) from %s: %v", tc.list, from, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("appendTerms(%q) from %s: error %v, want one naming %s", tc.list, from, err, tc.wantErr)
			}
		}
	}
}

// TestCountLoggedAsAMap: walking the asked terms beside a logged row
// counts what looking each logged term up in a set of them counts,
// repeated terms, terms past the last asked and a wrapped sum included.
func TestCountLoggedAsAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for round := range 200 {
		var row []uint32
		for range r.IntN(300) {
			row = append(row, uint32(r.IntN(400)))
		}
		slices.Sort(row)
		if round%10 == 0 && len(row) > 2 {
			row[len(row)/2] = 1<<32 - 5 // the sum then wraps past it
		}
		var asked []uint32
		for range r.IntN(60) {
			asked = append(asked, uint32(r.IntN(450)))
		}
		asked = append(asked, 1<<32-5)
		slices.Sort(asked)
		asked = slices.Compact(asked)
		deltas := make([]uint32, len(row))
		var prev uint32
		for i, term := range row {
			deltas[i], prev = term-prev, term
		}
		// The reference: the row's terms summed back, each looked up.
		want := map[uint32]int{}
		set := map[uint32]bool{}
		for _, a := range asked {
			set[a] = true
		}
		var sum uint32
		for _, d := range deltas {
			if sum += d; set[sum] {
				want[sum]++
			}
		}
		counts := make([]int, len(asked))
		countLogged(counts, asked, deltas)
		for j, a := range asked {
			if counts[j] != want[a] {
				t.Fatalf("round %d: term %d counted %d times, want %d", round, a, counts[j], want[a])
			}
		}
	}
}

// BenchmarkLoggedRow: a small workspace's logged row of 45 articles' 96
// features parsed and matched against a poll's thousand asked terms, as
// each save's read does for every logged row of its window.
func BenchmarkLoggedRow(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	var terms []uint32
	for range 45 * 96 {
		terms = append(terms, r.Uint32()>>2)
	}
	slices.Sort(terms)
	var sb strings.Builder
	sb.WriteByte('[')
	var prev uint32
	for i, term := range terms {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.FormatUint(uint64(term-prev), 10))
		prev = term
	}
	sb.WriteByte(']')
	row := []byte(sb.String())
	asked := slices.Clone(terms[:500])
	for range 500 {
		asked = append(asked, r.Uint32()>>2)
	}
	slices.Sort(asked)
	asked = slices.Compact(asked)
	counts := make([]int, len(asked))
	var logged []uint32
	b.SetBytes(int64(len(row)))
	for b.Loop() {
		var err error
		if logged, err = parseTermList(logged[:0], row); err != nil {
			b.Fatal(err)
		}
		countLogged(counts, asked, logged)
	}
}
