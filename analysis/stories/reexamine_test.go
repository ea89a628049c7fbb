package stories

import (
	"context"
	"testing"
	"time"
)

// lohanCheckIn is the report of an event of the re-examination tests'
// kind (a rehab check-in) that the Reid reports are not about.
func lohanCheckIn() Arrival {
	return arrival("Lindsay Lohan checks into Betty Ford Center",
		"Lindsay Lohan has checked into the Betty Ford Center in Rancho Mirage to begin a 90-day court-ordered stay, her lawyer Shawn Holley said.", 0)
}

// With re-examination, an article that joined the wrong story moves to
// its own event's story once that story has formed; without it, it
// stays. (The options are bent: the first Reid report joins the Lohan
// story, the second starts one of its own, and no report merges the two.)
func TestReexaminationMovesAMisplacedArticle(t *testing.T) {
	lohan := lohanCheckIn()
	reid := []Arrival{
		arrival("Tara Reid checks into Promises rehab in Malibu",
			"Perennial party girl Tara Reid checked herself into the Promises Treatment Center in Malibu, her publicist Jack Ketsoyan told People magazine, as Lohan did.", time.Hour),
		arrival("Tara Reid enters Promises in Malibu",
			"Actress Tara Reid has entered the Promises Treatment Center in Malibu, publicist Jack Ketsoyan said on Tuesday.", 2*time.Hour),
		arrival("Tara Reid enters Promises in Malibu, publicist says",
			"Actress Tara Reid has entered the Promises Treatment Center in Malibu, publicist Jack Ketsoyan said on Tuesday.", 3*time.Hour),
	}
	for _, tc := range []struct {
		name      string
		reexamine bool
	}{{"without re-examination", false}, {"with re-examination", true}} {
		t.Run(tc.name, func(t *testing.T) {
			opts := GroupOptions{ReexamineMembers: -1}
			if tc.reexamine {
				opts.ReexamineMembers = 0 // the default
			}
			mem, err := NewMemGroups(opts)
			if err != nil {
				t.Fatal(err)
			}
			// A background archive, so that words weigh as in a workspace.
			for _, a := range loadStorySet(t) {
				mem.Count(1, []Profile{NewProfile(a.Title, a.Markdown)})
			}
			ctx := context.Background()
			place := func(a Arrival) (int64, int64) {
				t.Helper()
				arts, st, _, err := mem.Place(ctx, 1, []Arrival{a})
				if err != nil {
					t.Fatal(err)
				}
				return arts[0], st[0]
			}
			_, lohanStory := place(lohan)
			mem.opts.Threshold, mem.opts.MergeThreshold, mem.opts.IndexTerms = 0.01, 0.99, MaxProfileFeatures
			misplaced, st := place(reid[0])
			if st != lohanStory {
				t.Fatalf("the first Reid report went to story %d; the test needs it in the Lohan story %d", st, lohanStory)
			}
			mem.opts.Threshold, mem.opts.IndexTerms = 0.9, DefaultIndexTerms
			second, _ := place(reid[1])
			mem.opts.Threshold = DefaultGroupThreshold
			place(reid[2])
			reidStory := mem.StoryOf(1, second)
			if reidStory == lohanStory {
				t.Fatalf("the later Reid reports joined the Lohan story %d; the test needs a Reid story", lohanStory)
			}
			got := mem.StoryOf(1, misplaced)
			if want := map[bool]int64{false: lohanStory, true: reidStory}[tc.reexamine]; got != want {
				t.Errorf("the first Reid report is in story %d, want %d (Lohan %d, Reid %d)", got, want, lohanStory, reidStory)
			}
			if got := mem.StoryOf(1, 1); got != lohanStory {
				t.Errorf("the Lohan report is in story %d, want it to stay in %d", got, lohanStory)
			}
		})
	}
}
