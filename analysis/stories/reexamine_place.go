package stories

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// reexamination is what the placer reads and decides to re-examine a
// save's stories after its decision (see reexamine): at most four
// statements whatever the number of articles (the members, the
// frequencies of the features of members without fresh kept IDFs, the
// term index, the candidate stories), one when the stories looked at
// have no member to re-examine.
type reexamination struct {
	re        *Reexamination
	profiles  map[int64]*Profile // of the members, for the reasons
	revisions map[int64]int64    // of the candidate stories read
}

// reexamine re-examines the stories the decision g changed or compared
// (see reexamined).
// found is what the decision's lookup read for the index terms looked
// (sorted), ranked its ranking of each article's stored stories, df the
// frequencies it read (the members' features are added to them), now
// the earliest of the save's articles.
func (p *Placer) reexamine(ctx context.Context, view model.StoryView, ws int64, g *Grouping, found *Lookup, ranked [][]int64,
	looked []uint32, df *docFreq, dfSince, now time.Time) (*reexamination, error) {
	o := p.opts
	into := map[int64]int64{}
	for _, m := range g.Merges {
		into[m.From] = m.Into
	}
	resolve := func(id int64) int64 { return survivor(into, id) }
	look := reexaminedOf(g, ranked, resolve)
	if len(look) == 0 {
		return nil, nil
	}
	// The members of a merged-away story are stored under its id until
	// the save moves them.
	ask := slices.Clone(look)
	for from := range into {
		ask = append(ask, from)
	}
	slices.Sort(ask)
	read, err := view.StoryMembers(ctx, model.StoryMemberQuery{WorkspaceID: ws, Stories: slices.Compact(ask),
		Since: now.Add(-o.Window), Until: now.Add(o.Window), PerStory: o.ReexamineMembers})
	if err != nil {
		return nil, fmt.Errorf("re-examine stories: %w", err)
	}
	ms := make([]StoredMember, 0, len(read))
	for _, r := range read {
		if r.Profile == nil {
			continue // stored before profiles were kept
		}
		prof, placed, idfs, err := DecodeProfileIDFs(r.Profile)
		if err != nil {
			continue // another version's profile: not re-examined
		}
		ms = append(ms, StoredMember{ArticleID: r.ArticleID, StoryID: resolve(r.StoryID), At: r.ReportedAt, Profile: prof, Terms: r.Terms,
			IDFs: idfs, PlacedDocs: placed})
	}
	ms = latestMembers(ms, o.ReexamineMembers, now, o.Window)
	if len(ms) == 0 {
		return nil, nil
	}
	counted := withCounted(df, p.arrivals)
	if err := p.readMemberFreqs(ctx, view, ws, ms, df, counted.Docs(), dfSince); err != nil {
		return nil, err
	}
	cents := make(map[int64]Centroid, len(found.Stories)+len(g.Stored))
	for id, c := range found.Stories {
		if resolve(id) == id {
			cents[id] = c
		}
	}
	for id, c := range g.Stored {
		cents[id] = c
	}
	// df holds every frequency the placement read, none counted recorded
	// as 0: the poll's features, and those read for stories and members
	// stored before they kept IDFs.
	held := func(t uint32) bool { _, ok := df.terms[t]; return ok }
	weighed := newMemberWeighings(newMemberIDFs(counted, held), len(ms))
	ms = narrowTerms(ms, weighed, reexamineTerms)
	known, unread := p.knownPostings(found, looked, memberTerms(ms))
	index, err := view.StoryPostings(ctx, model.StoryTermQuery{WorkspaceID: ws, Terms: unread, Since: now.Add(-o.Window),
		PerTerm: reexaminePerTerm, Stored: true})
	if err != nil {
		return nil, fmt.Errorf("re-examine stories: %w", err)
	}
	postings := append(known, newestPostings(index, reexaminePerTerm)...)
	for i := range postings {
		postings[i].StoryID = resolve(postings[i].StoryID)
	}
	out := &reexamination{profiles: map[int64]*Profile{}, revisions: map[int64]int64{}}
	// The candidates the decision did not read are read in one statement
	// (none when it read them all). The members' own stories are all
	// known: the poll changed or compared them.
	rc := newReexamCandidates(ms, postings, now, o)
	ids := slices.DeleteFunc(slices.Clone(rc.union), func(id int64) bool { _, ok := cents[id]; return ok })
	states, err := view.StoryStates(ctx, ws, ids)
	if err != nil {
		return nil, fmt.Errorf("re-examine stories: %w", err)
	}
	for _, st := range states {
		if st.MergedInto != 0 || len(st.Centroid) == 0 {
			continue
		}
		if c, err := DecodeCentroid(st.Centroid, st.Articles); err == nil {
			cents[st.ID] = c
			out.revisions[st.ID] = st.Revision
		}
	}
	for i := range ms {
		out.profiles[ms[i].ArticleID] = &ms[i].Profile
	}
	out.re = reexamine(ms, postings, rc, cents, weighed, now, o)
	return out, nil
}

// knownPostings is, of the index entries re-examination looks up for
// terms, those the decision's lookup read already (its query, looked,
// asked for the same window and at least as many entries per term): the
// reexaminePerTerm newest of each of those terms, as the index would
// hand them again. ask is the other terms, to be read.
func (p *Placer) knownPostings(found *Lookup, looked, terms []uint32) (known []Posting, ask []uint32) {
	if p.opts.PerTermLimit < reexaminePerTerm {
		return nil, terms
	}
	have := map[uint32]bool{}
	for _, t := range terms {
		if _, ok := slices.BinarySearch(looked, t); ok {
			have[t] = true
		} else {
			ask = append(ask, t)
		}
	}
	n := 0
	for i, ps := range found.Postings { // by term, newest first
		if i == 0 || ps.Term != found.Postings[i-1].Term {
			n = 0
		}
		if n++; have[ps.Term] && n <= reexaminePerTerm {
			known = append(known, ps)
		}
	}
	return known, ask
}

// readMemberFreqs adds to df the frequencies it does not hold of the
// features of the members weighed with the current frequencies (those
// without fresh kept IDFs in an archive of docs articles, see keptFresh),
// in one statement, made whenever there is such a member (also when df
// holds all their features, so that the statements a poll makes depend
// only on the members it looks at). A poll whose members all kept fresh
// IDFs reads no frequencies here.
func (p *Placer) readMemberFreqs(ctx context.Context, view model.StoryView, ws int64, ms []StoredMember, df *docFreq, docs int,
	since time.Time) error {
	var missing []uint32
	read := false
	for i := range ms {
		if keptFresh(&ms[i], docs) {
			continue
		}
		read = true
		for _, f := range ms[i].Profile.Features {
			if _, ok := df.terms[f.Term]; !ok {
				missing = append(missing, f.Term)
			}
		}
	}
	if !read {
		return nil
	}
	slices.Sort(missing)
	missing = slices.Compact(missing)
	more, err := view.StoryDocFreq(ctx, ws, missing, since)
	if err != nil {
		return fmt.Errorf("re-examine stories: %w", err)
	}
	for _, t := range missing {
		df.terms[t] = more.Terms[t]
	}
	return nil
}

// withMoves adds re-examination's moves to a placement: a move that
// empties its story is a merge of that story (with the move's reason),
// so merges and choices are followed to the stories that absorb them;
// the others are moves. The centroids the moves changed go in Updates
// with the revisions read, so the save's lock checks them like any other.
func withMoves(out *model.StoryPlacement, r *reexamination, revisions map[int64]int64) {
	if r == nil || len(r.re.Moves) == 0 {
		return
	}
	into := map[int64]int64{}
	for _, m := range out.Merges {
		into[m.From] = m.Into
	}
	for _, mv := range r.re.Moves {
		if mv.Empties {
			into[mv.From] = mv.Into
		}
	}
	rev := func(id int64) int64 {
		if v, ok := revisions[id]; ok {
			return v
		}
		return r.revisions[id]
	}
	updates := map[int64]model.StoryUpdate{}
	for _, u := range out.Updates {
		updates[u.ID] = u
	}
	for i := range out.Merges {
		out.Merges[i].Into = survivor(into, out.Merges[i].Into)
	}
	for i := range out.Articles {
		if id := out.Articles[i].StoryID; id > 0 {
			out.Articles[i].StoryID = survivor(into, id)
		}
	}
	for _, mv := range r.re.Moves {
		reason := moveReasonText(mv, r.profiles[mv.ArticleID])
		to := survivor(into, mv.Into)
		if mv.Empties {
			out.Merges = append(out.Merges, model.StoryMerge{From: mv.From, Into: to, Reason: reason})
			updates[mv.From] = model.StoryUpdate{ID: mv.From, Revision: rev(mv.From)}
			continue
		}
		out.Moves = append(out.Moves, model.StoryMove{ArticleID: mv.ArticleID, From: mv.From, Into: to, ReportedAt: mv.At, Reason: reason})
	}
	for id, c := range r.re.Stories {
		updates[id] = model.StoryUpdate{ID: id, Revision: rev(id), Centroid: EncodeCentroid(c)}
	}
	out.Updates = out.Updates[:0]
	for _, id := range slices.Sorted(maps.Keys(updates)) {
		out.Updates = append(out.Updates, updates[id])
	}
}

// moveReasonText is the reason of a re-examined article: the story it
// left and how it scored there without it, then why it is in its new
// story, as a placement words it.
func moveReasonText(mv Move, p *Profile) string {
	left := fmt.Sprintf("moved from story %d, where it was alone,", mv.From)
	if !mv.Empties {
		left = fmt.Sprintf("moved from story %d (score %.2f with its other articles)", mv.From, mv.OwnScore)
	}
	if p == nil {
		p = &Profile{}
	}
	return left + " after a later poll; " + reasonText(mv.Reason, p)
}
