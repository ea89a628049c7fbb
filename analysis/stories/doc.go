// Package stories groups the articles of a workspace that report the same
// thing into stories: independently written reports of one event,
// syndicated copies with other site furniture, copies under edited
// headlines, truncated feed excerpts, light rewrites of one press release. Different events of one kind (two earthquakes,
// two releases of one program) stay apart.
//
// The daemon groups by terms: each article's Profile (NewProfile) is
// weighed by the rarity of its features in the workspace (IDF), filed in a
// term index under its heaviest terms, and compared with the centroids of
// the stories those terms reach (Group); Placer runs that inside a poll's
// save (model.StoryPlacer), so independently written reports of one event
// join one story and a report bridging two stories merges them.
//
// Provenance orders a story's members and gives each one's lag behind
// the first reporter; ContentWords gives other stages (summaries, the
// digest) the same vocabulary to compare texts with.
//
// Everything here is deterministic: the same texts give the same
// profiles, index terms and stories on every machine.
package stories
