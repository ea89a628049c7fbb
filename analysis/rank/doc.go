// Package rank scores what feedpoller lists and digests: the reliability
// tier of a source (from domain rules, or set per source), the freshness
// of an article (a linear decay by class), the rank of an article
// (relevance × reliability × freshness) and the confidence of a story
// (how many independent sources carry it, and how reliable they are).
// Everything here is a pure function of its inputs.
package rank
