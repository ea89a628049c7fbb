package stories

import (
	"context"
	"errors"
	"testing"
	"time"
)

const wire = `SANTIAGO, March 4 (Newswire) - A magnitude 6.8 earthquake struck off the coast of central Chile early on Tuesday, shaking buildings in the capital Santiago and the port city of Valparaíso, the U.S. Geological Survey said.

The quake hit at 3:12 a.m. local time at a depth of 31 kilometres, about 48 km west of Valparaíso, according to the USGS. Chile's navy said the earthquake did not meet the conditions to generate a tsunami along the coast.

The national disaster agency Senapred said there were no immediate reports of deaths. Power was cut to about 120,000 homes in the Valparaíso region.`

func TestSignIsDeterministicAndRoundTrips(t *testing.T) {
	a, b := Sign("Quake strikes Chile", wire), Sign("Quake strikes Chile", wire)
	if a != b {
		t.Fatal("two signatures of one text differ")
	}
	raw, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var c Signature
	if err := c.UnmarshalBinary(raw); err != nil {
		t.Fatal(err)
	}
	if c != a {
		t.Fatal("signature changed through MarshalBinary/UnmarshalBinary")
	}
	// A fixed text has fixed keys on every machine: stored keys stay valid.
	if k := a.Keys(); len(k) != MaxKeys {
		t.Fatalf("%d keys, want %d", len(k), MaxKeys)
	}
	raw[0] = SignatureVersion + 1
	if err := c.UnmarshalBinary(raw); !errors.Is(err, ErrSignatureVersion) {
		t.Fatalf("other version: err = %v, want ErrSignatureVersion", err)
	}
	raw[0] = SignatureVersion
	if err := c.UnmarshalBinary(raw[:10]); err == nil || errors.Is(err, ErrSignatureVersion) {
		t.Fatalf("short input: err = %v, want a length error", err)
	}
}

// Markup, links, images, case and site furniture do not change what is
// compared.
func TestSignIgnoresMarkupAndFurniture(t *testing.T) {
	plain := Sign("Quake strikes Chile", wire)
	dressed := "Advertisement\n\nBy Newswire | Published March 4, 2025\n\n![A damaged road](https://img.example/q.jpg)\n\n" +
		"SANTIAGO, March 4 (Newswire) - A **magnitude 6.8** earthquake struck off the coast of [central Chile](https://example.org/chile) early on Tuesday, shaking buildings in the capital Santiago and the port city of Valparaíso, the U.S. Geological Survey said. https://example.org/usgs\n\n" +
		wire[len("SANTIAGO, March 4 (Newswire) - A magnitude 6.8 earthquake struck off the coast of central Chile early on Tuesday, shaking buildings in the capital Santiago and the port city of Valparaíso, the U.S. Geological Survey said.\n\n"):] +
		"\n\nRelated coverage:\n\n- Magnitude 7.0 earthquake hits eastern Taiwan\n- Quake jolts Umbria\n\n© 2025 The Daily Ledger. All rights reserved."
	got := Sign("QUAKE strikes Chile!", dressed)
	if got != plain {
		sim := Compare(&plain, &got)
		t.Fatalf("dressed copy has another signature (similarity %+v)", sim)
	}
}

func TestEmptyTextMatchesNothing(t *testing.T) {
	e := Sign("", "   \n\n![x](y)\n\nAdvertisement")
	if !e.Empty() || e.Keys() != nil {
		t.Fatalf("empty text: Empty=%v keys=%d", e.Empty(), len(e.Keys()))
	}
	w := Sign("t", wire)
	if s := Compare(&e, &w).Score(); s != 0 {
		t.Fatalf("empty vs text score %v", s)
	}
	if s := Compare(&e, &e).Score(); s != 0 {
		t.Fatalf("empty vs empty score %v", s)
	}
}

// Two automated reports of different quakes share their template but not
// their figures: the numbers keep them apart, while a rewrite of one that
// keeps the figures joins it.
func TestNumbersKeepTemplatedReportsApart(t *testing.T) {
	a := Sign("Magnitude 4.6 earthquake strikes near Ridgecrest, California",
		"A magnitude 4.6 earthquake struck at 3:14 a.m. Pacific time Monday 12 kilometres southwest of Ridgecrest, California, according to the U.S. Geological Survey.\n\nThe earthquake occurred 181 kilometres from Bakersfield and 196 kilometres from Lancaster. It struck at a depth of 8.1 kilometres.\n\nIn the last 10 days, there have been 6 earthquakes of magnitude 3.0 or greater centred nearby.")
	b := Sign("Magnitude 4.3 earthquake strikes near Hollister, California",
		"A magnitude 4.3 earthquake struck at 3:41 p.m. Pacific time Wednesday 9 kilometres east of Hollister, California, according to the U.S. Geological Survey.\n\nThe earthquake occurred 43 kilometres from Salinas and 62 kilometres from San Jose. It struck at a depth of 6.4 kilometres.\n\nIn the last 10 days, there have been 2 earthquakes of magnitude 3.0 or greater centred nearby.")
	r := Sign("Early-morning 4.6 quake shakes Ridgecrest, USGS says",
		"The U.S. Geological Survey recorded a magnitude 4.6 earthquake at 3:14 a.m. Pacific time on Monday, 12 kilometres southwest of Ridgecrest, California, at a depth of 8.1 kilometres.\n\nThe epicentre was 181 kilometres from Bakersfield and 196 kilometres from Lancaster. Six quakes of magnitude 3.0 or more have been centred nearby in the past 10 days.")
	ab, ar := Compare(&a, &b), Compare(&a, &r)
	if ab.Score() >= DefaultThreshold {
		t.Errorf("different quakes score %.2f (%+v), want < %.2f", ab.Score(), ab, DefaultThreshold)
	}
	if ar.Score() < DefaultThreshold {
		t.Errorf("rewrite scores %.2f (%+v), want ≥ %.2f", ar.Score(), ar, DefaultThreshold)
	}
}

func TestDecide(t *testing.T) {
	t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
	quake := Sign("Quake strikes Chile", wire)
	copyOf := Sign("Strong quake shakes Valparaíso", "Listen to this article\n\n"+wire)
	other := Sign("ECB cuts rates", "FRANKFURT (Newswire) - The European Central Bank cut interest rates for the sixth time in a year on Thursday, saying the outlook for euro zone growth had deteriorated because of rising trade tensions. The deposit rate fell by 25 basis points to 2.25%.")
	stored := []Candidate{
		{ArticleID: 10, StoryID: 100, At: t0, Signature: &quake},
		{ArticleID: 11, StoryID: 101, At: t0, Signature: &other},
	}
	t.Run("joins the stored story it matches", func(t *testing.T) {
		as, err := Decide([]Item{{Signature: copyOf, At: t0.Add(time.Hour)}}, stored, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if as[0].StoryID != 100 || as[0].MatchedArticleID != 10 || as[0].NewStory() {
			t.Fatalf("assignment %+v, want story 100 via article 10", as[0])
		}
	})
	t.Run("outside the window starts a story", func(t *testing.T) {
		as, _ := Decide([]Item{{Signature: copyOf, At: t0.Add(8 * 24 * time.Hour)}}, stored, Options{})
		if !as[0].NewStory() {
			t.Fatalf("assignment %+v, want a new story", as[0])
		}
	})
	t.Run("batch items join each other", func(t *testing.T) {
		items := []Item{{Signature: quake, At: t0}, {Signature: other, At: t0}, {Signature: copyOf, At: t0.Add(time.Minute)}}
		as, _ := Decide(items, nil, Options{})
		if !as[0].NewStory() || !as[1].NewStory() || as[2].JoinsItem != 0 || as[2].StoryID != 0 {
			t.Fatalf("assignments %+v, want new, new, joins item 0", as)
		}
		// A third copy joins the story item 0 started, not item 2 itself.
		as, _ = Decide(append(items, Item{Signature: copyOf, At: t0.Add(2 * time.Minute)}), nil, Options{})
		if as[3].JoinsItem != 0 {
			t.Fatalf("fourth item joins item %d, want 0", as[3].JoinsItem)
		}
	})
	t.Run("the closer of two stories wins", func(t *testing.T) {
		cands := append(stored, Candidate{ArticleID: 12, StoryID: 102, At: t0, Signature: &copyOf})
		as, _ := Decide([]Item{{Signature: copyOf, At: t0.Add(time.Hour)}}, cands, Options{})
		if as[0].StoryID != 102 {
			t.Fatalf("assignment %+v, want story 102 (identical text)", as[0])
		}
	})
	t.Run("options out of range", func(t *testing.T) {
		for _, o := range []Options{{Threshold: 1.5}, {Threshold: -0.1}, {Window: -time.Hour}} {
			if _, err := Decide(nil, nil, o); !errors.Is(err, ErrOptions) {
				t.Errorf("%+v: err = %v, want ErrOptions", o, err)
			}
		}
	})
}

func TestClustererUsesIndexWindow(t *testing.T) {
	t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
	idx := NewMemIndex()
	quake := Sign("Quake strikes Chile", wire)
	idx.Add(1, 10, 100, t0, quake)
	idx.Add(2, 20, 200, t0, quake) // another workspace
	c, err := NewClusterer(idx, Options{Window: 48 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	as, err := c.Assign(context.Background(), 1, []Item{{Signature: quake, At: t0.Add(24 * time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	if as[0].StoryID != 100 {
		t.Fatalf("within window: %+v, want story 100", as[0])
	}
	as, _ = c.Assign(context.Background(), 1, []Item{{Signature: quake, At: t0.Add(72 * time.Hour)}})
	if !as[0].NewStory() {
		t.Fatalf("beyond window: %+v, want a new story", as[0])
	}
	as, _ = c.Assign(context.Background(), 3, []Item{{Signature: quake, At: t0}})
	if !as[0].NewStory() {
		t.Fatalf("other workspace: %+v, want a new story", as[0])
	}
}

func TestProvenance(t *testing.T) {
	t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
	got := Provenance([]Member{
		{ArticleID: 3, SourceID: 30, At: t0.Add(2 * time.Hour)},
		{ArticleID: 2, SourceID: 20, At: t0},
		{ArticleID: 1, SourceID: 10, At: t0},
	})
	want := []struct {
		id    int64
		lag   time.Duration
		first bool
	}{{1, 0, true}, {2, 0, false}, {3, 2 * time.Hour, false}}
	for i, w := range want {
		if got[i].ArticleID != w.id || got[i].Lag != w.lag || got[i].First != w.first {
			t.Errorf("report %d = %+v, want article %d lag %v first %v", i, got[i], w.id, w.lag, w.first)
		}
	}
}

func TestReportedAt(t *testing.T) {
	stored := time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC)
	past, future := stored.Add(-time.Hour), stored.Add(time.Hour)
	for _, tc := range []struct {
		pub  *time.Time
		want time.Time
	}{{&past, past}, {&future, stored}, {nil, stored}, {&time.Time{}, stored}} {
		if got := ReportedAt(tc.pub, stored); !got.Equal(tc.want) {
			t.Errorf("ReportedAt(%v) = %v, want %v", tc.pub, got, tc.want)
		}
	}
}

// A key shared by many articles contributes only its newest PerKeyLimit.
func TestMemIndexCapsEachKey(t *testing.T) {
	t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
	idx := NewMemIndex()
	sig := Sign("Quake strikes Chile", wire)
	for i := range 100 {
		idx.Add(1, int64(i+1), int64(i+1), t0.Add(time.Duration(i)*time.Minute), sig)
	}
	got, err := idx.Candidates(context.Background(), 1, sig.Keys(), t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != PerKeyLimit {
		t.Fatalf("%d candidates, want %d", len(got), PerKeyLimit)
	}
	for _, c := range got {
		if c.ArticleID <= 100-PerKeyLimit {
			t.Fatalf("article %d returned: not among the newest %d", c.ArticleID, PerKeyLimit)
		}
	}
	got, _ = idx.Candidates(context.Background(), 1, sig.Keys(), t0.Add(90*time.Minute))
	if len(got) != 10 {
		t.Fatalf("since excludes older: %d candidates, want 10", len(got))
	}
}
