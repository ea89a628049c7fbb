// Package lexemes is the one reading of text that PostgreSQL's full-text
// index is built and queried with: how text splits into words, how a word
// is folded and stemmed, which words are stop words, and how a
// document's words are written as a tsvector. The daemon computes every
// article's vector with it when it saves the article, and store/textquery
// computes a query's lexemes with it, so a word found in a document is
// found by a query for it by construction, and the database server never
// runs its own text parser.
//
// A word is a run of letters, digits and combining marks; everything else
// separates words. A word is folded (lower case, accents removed: "Café"
// is "cafe"), then stemmed with the Snowball English stemmer
// ("releases" is "releas"); the Snowball English stop words ("the", "of")
// take a position but are not indexed. "node.js", "state-of-the-art" and
// a URL are several words in a row, which a query finds as a phrase.
package lexemes
