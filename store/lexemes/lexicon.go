package lexemes

import "github.com/feedpoller/feedpoller/internal/memo"

// Lexicon remembers the lexeme of the words it has read, for every
// document a process indexes: stemming is most of a vector's cost, and
// articles share most of their words. It holds at most a fixed number of
// words, starting over when full. Safe for concurrent use; a nil
// Lexicon remembers nothing.
type Lexicon struct{ words *memo.Words[string] } // folded word → lexeme ("" for a stop word)

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
	d := l.read(parts)
	defer d.release()
	return d.literal()
}

// ArticleBinary is the vector of Article in PostgreSQL's binary format of
// a tsvector (tsvectorsend's), which the server takes nearly as it
// stores it, where it parses a literal character by character: a
// parameter sent in binary, the literal's lexemes and positions, the
// lexemes already in the order the server keeps them.
func (l *Lexicon) ArticleBinary(title, summary, body string, bodyWeight Weight) []byte {
	d := l.read(articleParts(title, summary, body, bodyWeight))
	defer d.release()
	return d.binary()
}

// read gathers the lexemes of a document's parts, in a document from
// the pool: the caller releases it.
func (l *Lexicon) read(parts []Part) *document {
	size := 0
	for _, p := range parts {
		size += len(cut(p.Text, p.MaxChars))
	}
	d := documents.Get().(*document)
	d.reset(l, size)
	for _, p := range parts {
		d.add(cut(p.Text, p.MaxChars), p.Weight)
	}
	return d
}

// lexeme is lexemeOf(folded), remembered.
func (l *Lexicon) lexeme(folded string) string {
	if l == nil {
		return lexemeOf(folded)
	}
	return l.words.Of(folded, lexemeOf)
}

// lexemeBytes is lexeme for a folded word in a buffer the caller reuses.
func (l *Lexicon) lexemeBytes(folded []byte) string {
	if l == nil {
		return lexemeOf(string(folded))
	}
	return l.words.OfBytes(folded, lexemeOf)
}
