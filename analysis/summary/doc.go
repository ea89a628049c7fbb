// Package summary writes an extractive summary of an article: a few of
// its own sentences, chosen without any model, so that digests and
// agents can read what an article says before its full text.
//
// The article's prose is split into sentences by Sentences, which knows
// titles, abbreviations, initials and figures (headings, code, tables,
// lists, images, site furniture and date stamps left out). Each sentence
// is a bag of content words, the same words story detection compares. A
// sentence's centrality is its summed cosine similarity with the other
// sentences (degree centrality, as in LexRank without the power
// iteration): a sentence that shares the article's recurring names and
// facts scores high, an aside scores low. News puts its key facts first,
// so the score blends centrality with position. The best sentences are
// returned in article order, within a sentence and character budget; the
// first of them never leans on a sentence left out (DependsOnEarlier)
// unless it is the article's own first, and a summary is never only a date
// stamp (IsDateStamp). When centrality says nothing (one or two sentences,
// or no words in common), the first paragraph is the summary.
//
// Only the first MaxConsidered sentences compete, so the cost is linear
// in the length of the article with a fixed cap on the pairwise part.
// The same text always gives the same summary.
package summary
