// Package stories groups the articles of a workspace that report the same
// thing into stories: syndicated copies with other site furniture,
// copies under edited headlines, truncated feed excerpts, light rewrites
// of one press release. Different events of one kind (two earthquakes,
// two releases of one program) stay apart.
//
// The daemon groups by terms: each article's Profile (NewProfile) is
// weighed by the rarity of its features in the workspace (IDF), filed in a
// term index under its heaviest terms, and compared with the centroids of
// the stories those terms reach (Group); Placer runs that inside a poll's
// save (model.StoryPlacer), so independently written reports of one event
// join one story and a report bridging two stories merges them.
//
// The near-copy path below is the earlier one, kept for comparison: each
// article got a Signature (Sign): MinHash
// sketches of its word shingles, of its lead and of its content words,
// and a sketch of its numbers. Signatures are compared, never texts
// (Compare, Similarity.Score), so deciding costs the same for a long
// article as for a short one. The band keys of a signature (Keys) are
// what an index stores; candidates for a new article are the stored
// articles that share a key with it within the story window, so finding
// them is one indexed lookup whose cost follows the number of
// near-duplicates, not the size of the archive. Clusterer and Decide
// place a poll's new articles; Provenance orders a story's members and
// gives each one's lag behind the first reporter.
//
// Everything here is deterministic: the same texts give the same
// signatures and keys on every machine.
package stories
