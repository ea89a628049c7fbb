// Package digest turns a workspace's stories over a time window into a
// report with citations, in three formats: Markdown for people, JSON for
// programs, and a compact text fitted to an exact token budget for LLM
// agents.
//
// The caller fills an Input from the database (the stories whose
// articles fall in the window, with each article's source, tier and
// summary, and the state of every source) and calls Build, which ranks
// the stories, computes their confidence and provenance and numbers the
// citations. Markdown, JSON and Compact render the result. Every story
// line cites at least one article URL; a story without one is not
// rendered.
package digest
