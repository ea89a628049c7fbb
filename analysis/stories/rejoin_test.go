package stories

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// Two reports of one event that each started a story, as two saves
// deciding at once do: a rejoin of either save merges the later story
// into the earlier, whichever side asks and whether the asking save
// started its story or grew it; a report of another event stays apart.
// A story the save started with two reports takes in the other's
// one-article story (the smaller merges into the larger).
func TestRejoinMergesStoriesStartedAtOnce(t *testing.T) {
	other := arrival("Magnitude 6.8 earthquake strikes off central Chile",
		"A magnitude 6.8 earthquake struck off the coast of central Chile on Tuesday, the US Geological Survey said; no tsunami warning was issued.", 90*time.Minute)
	for _, tc := range []struct {
		name      string
		ask       int // which report's save rejoins: 0 the first, 1 the second, 2 the other event's
		started   bool
		wantMerge bool
	}{
		{"the second save, which started its story", 1, true, true},
		{"the first save, which started its story", 0, true, true},
		{"the first save, as a story it grew", 0, false, true},
		{"a save of another event", 2, true, false},
		{"the second save, which started a story of two", 1, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem, s1, s2 := placeLateJoinPolls(t, GroupOptions{MergeThreshold: 0.99})
			threshold := mem.opts.Threshold
			mem.opts.Threshold = 0.98
			_, s3, g3, err := mem.Place(context.Background(), 1, []Arrival{other})
			if err != nil {
				t.Fatal(err)
			}
			mem.opts.Threshold = threshold
			w := mem.workspace(1)
			two := strings.Contains(tc.name, "of two")
			if two { // as if a second report of the save had joined the story it started
				w.stories[s2] = w.stories[s2].merge(w.stories[s2], &weighing{p: &Profile{}})
			}
			storyOf := []int64{s1, s2, s3[0]}
			at := []time.Time{lateJoinPolls[0][0].At, lateJoinPolls[1][0].At, other.At}
			var terms []uint32
			for _, ps := range w.postings {
				for _, p := range ps {
					if w.resolve(p.StoryID) == storyOf[tc.ask] {
						terms = append(terms, p.Term)
					}
				}
			}
			if tc.ask == 2 {
				terms = g3.Placements[0].Terms
			}
			req := model.StoryRejoin{WorkspaceID: 1, Terms: terms,
				Stories: []model.RejoinStory{{ID: storyOf[tc.ask], Started: tc.started, At: at[tc.ask]}}}
			out, err := rejoin(context.Background(), memView{w: w}, req, mem.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.wantMerge {
				if len(out.Merges) != 0 {
					t.Errorf("merges %+v, want none", out.Merges)
				}
				return
			}
			from, into, articles := s2, s1, 2
			if two { // the smaller story merges into the larger
				from, into, articles = s1, s2, 3
			}
			if len(out.Merges) != 1 || out.Merges[0].From != from || out.Merges[0].Into != into || out.Merges[0].Reason == "" {
				t.Fatalf("merges %+v, want story %d into %d with a reason", out.Merges, from, into)
			}
			var survivor []byte
			for _, u := range out.Updates {
				if u.ID == into {
					survivor = u.Centroid
				}
			}
			if len(out.Updates) != 2 || survivor == nil {
				t.Fatalf("updates %+v, want stories %d and %d, %d with its new centroid", out.Updates, from, into, into)
			}
			merged, err := DecodeCentroid(survivor, articles)
			if err != nil || merged.Articles != articles {
				t.Errorf("the surviving centroid holds %d articles (%v), want %d", merged.Articles, err, articles)
			}
		})
	}
}
