package schedule

import (
	"strings"
	"testing"
	"time"
)

func TestStateText(t *testing.T) {
	cfg := Config{}
	_, s, _ := run(t, cfg, State{}, monday, monday.Add(10*24*time.Hour), every(50*time.Minute))
	s.Feed = FeedHints{TTL: 90 * time.Minute, HasTTL: true, SkipHours: 0b111, SkipDays: 1,
		SyPeriod: "hourly", SyFrequency: 2, SyBase: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}
	s.Peak = 12.5
	text, err := s.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	if len(text) > 400 {
		t.Errorf("stored state is %d bytes, want it compact: %s", len(text), text)
	}
	var back State
	if err := back.UnmarshalText(text); err != nil {
		t.Fatalf("read back: %v (%s)", err, text)
	}
	if back.Feed != s.Feed || !back.Updated.Equal(s.Updated.Truncate(time.Second)) || back.Listed != s.Listed || back.Peak != 12.5 {
		t.Errorf("read back %+v\nwant %+v", back, s)
	}
	now := s.Updated.Add(10 * time.Minute)
	want, _ := Next(now, cfg, s, Observation{Outcome: NotModified})
	got, _ := Next(now, cfg, back, Observation{Outcome: NotModified})
	if diff := got.At.Sub(want.At); diff > time.Minute || diff < -time.Minute || got.Reason != want.Reason {
		t.Errorf("after a round trip: %v %q, before %v %q", got.At, got.Reason, want.At, want.Reason)
	}
}

func TestUnreadableStateStartsAfresh(t *testing.T) {
	cases := []struct {
		name, text string
		err        string
	}{
		{"empty", "", ""},
		{"not JSON", "\x00\x01garbage", "unreadable"},
		{"truncated", `{"v":1,"u":17724`, "unreadable"},
		{"newer version", `{"v":2,"u":1772445600}`, "version 2 unknown"},
		{"no version", `{"u":1772445600,"n":3}`, "version 0 unknown"},
		{"negative count", `{"v":1,"u":1772445600,"n":-5,"e":10}`, "out of range"},
		{"wrong type", `{"v":1,"n":"many"}`, "unreadable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := State{Count: 1} // whatever was there before
			err := s.UnmarshalText([]byte(c.text))
			if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
				t.Errorf("error %v, want one containing %q", err, c.err)
			}
			if !s.Fresh() || s.Count != 0 {
				t.Errorf("state %+v, want a fresh one", s)
			}
			// A fresh state polls on, near Base.
			d, _ := Next(monday, Config{}, s, Observation{Outcome: NotModified})
			if in := d.At.Sub(monday); in < DefaultBase || in > 2*DefaultBase || d.Kind != KindAdaptive {
				t.Errorf("next poll in %v (%q), want about the base interval", in, d.Reason)
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": Adaptive, "adaptive": Adaptive, "fixed": Fixed} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseMode("sometimes"); err == nil || !strings.Contains(err.Error(), `"sometimes"`) {
		t.Errorf("ParseMode(sometimes): %v", err)
	}
}
