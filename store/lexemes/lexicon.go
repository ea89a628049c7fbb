package lexemes

import "github.com/feedpoller/feedpoller/internal/memo"

// Lexicon remembers the lexeme of the words it has read, for every
// document a process indexes: stemming is most of a vector's cost, and
// articles share most of their words. It holds at most a fixed number of
// words, starting over when full. Safe for concurrent use; a nil
// Lexicon remembers nothing.
type Lexicon struct{ words *memo.Words } // folded word → lexeme ("" for a stop word)

// NewLexicon remembers up to max words (a few megabytes for 50 000).
func NewLexicon(max int) *Lexicon {
	return &Lexicon{words: memo.NewWords(max)}
}

// Article is Article (the package function) through the lexicon.
func (l *Lexicon) Article(title, summary, body string, bodyWeight Weight) string {
	return l.Document(articleParts(title, summary, body, bodyWeight)...)
}

// articleParts are an article's parts as its vector reads them, in both
// of the vector's forms.
func articleParts(title, summary, body string, bodyWeight Weight) []Part {
	return []Part{{title, A, TitleChars}, {summary, B, SummaryChars}, {body, bodyWeight, BodyChars}}
}

// Document is Document (the package function) through the lexicon.
func (l *Lexicon) Document(parts ...Part) string {
	return l.read(parts).literal()
}

// ArticleBinary is the vector of Article in PostgreSQL's binary format of
// a tsvector (tsvectorsend's), which the server takes nearly as it
// stores it, where it parses a literal character by character: a
// parameter sent in binary, the literal's lexemes and positions, the
// lexemes already in the order the server keeps them.
func (l *Lexicon) ArticleBinary(title, summary, body string, bodyWeight Weight) []byte {
	return l.read(articleParts(title, summary, body, bodyWeight)).binary()
}

// read gathers the lexemes of a document's parts.
func (l *Lexicon) read(parts []Part) *document {
	texts := make([]string, len(parts))
	size := 0
	for i, p := range parts {
		texts[i] = cut(p.Text, p.MaxChars)
		size += len(texts[i])
	}
	// Sized for prose (a word in 6 bytes, a different one in 12 of a
	// short text, fewer in a long one), so that they are not grown word
	// by word.
	distinct := min(size/12, 512)
	d := document{lexicon: l, index: make(map[string]int, distinct), words: make(map[string]int, distinct),
		entries: make([]entry, 0, distinct), occurrences: make([]occurrence, 0, size/6)}
	for i, p := range parts {
		d.add(texts[i], p.Weight)
	}
	return &d
}

// lexeme is lexemeOf(folded), remembered.
func (l *Lexicon) lexeme(folded string) string {
	if l == nil {
		return lexemeOf(folded)
	}
	return l.words.Of(folded, lexemeOf)
}
