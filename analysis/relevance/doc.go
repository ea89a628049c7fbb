// Package relevance scores articles against a workspace's relevance profile
// with a deterministic, explainable lexical scorer: the same profile and
// text always give the same score, and the score can be recomputed by hand
// from the matched terms.
//
// # Matching
//
// Title, body and every profile term (keyword or exclusion) go through one
// tokenizer: Unicode-aware word splitting, case folding, accents removed,
// English words reduced to their Porter2 (Snowball) stem, so "Scheduling",
// "scheduled" and "schedules" all match the keyword "schedule", and
// "policies" matches "policy". A term of several words ("large language
// model") matches where its stems appear consecutively; punctuation between
// them ("large-language model") does not break the match.
//
// # Score
//
// For each keyword k with weight w_k (a weight that is zero, negative or
// not finite counts as 1, the default):
//
//	t_k = 1 if k occurs in the title, else 0
//	b_k = min(1, log1p(h_k) / log1p(3)), h_k = occurrences of k in the body
//	c_k = w_k × (2·t_k + b_k)
//
//	score = clamp(Σ c_k / (3 · Σ w_k), 0, 1)
//
// A keyword found in the title therefore contributes two thirds of its
// weight and the body the last third. Body hits saturate: 1 hit gives 0.5
// of the body share, 2 give 0.79 and 3 or more give all of it, so a long
// article that repeats one keyword cannot outscore a focused one. Adding
// keywords to a profile lowers the score of an article that matches only
// some of them; thresholds are chosen with that in mind.
//
// If any exclusion term occurs in the title or the body the score is 0 and
// Result.Excluded names the first such term in profile order. A profile
// with no usable keyword (none, or only ones that contain no word at all)
// scores every article 1, so that everything not excluded is promoted.
package relevance
