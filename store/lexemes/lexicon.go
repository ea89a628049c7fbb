package lexemes

import "sync"

// Lexicon remembers the lexeme of the words it has read, for every
// document a process indexes: stemming is most of a vector's cost, and
// articles share most of their words. It holds at most a fixed number of
// words, starting over when full. Safe for concurrent use; a nil
// Lexicon remembers nothing.
type Lexicon struct {
	mu    sync.Mutex
	words map[string]string // folded word → lexeme ("" for a stop word)
	max   int
}

// NewLexicon remembers up to max words (a few megabytes for 50 000).
func NewLexicon(max int) *Lexicon {
	return &Lexicon{words: map[string]string{}, max: max}
}

// Article is Article (the package function) through the lexicon.
func (l *Lexicon) Article(title, summary, body string, bodyWeight Weight) string {
	return l.Document(Part{title, A, TitleChars}, Part{summary, B, SummaryChars}, Part{body, bodyWeight, BodyChars})
}

// Document is Document (the package function) through the lexicon.
func (l *Lexicon) Document(parts ...Part) string {
	d := document{lexicon: l}
	for _, p := range parts {
		d.add(cut(p.Text, p.MaxChars), p.Weight)
	}
	return d.literal()
}

// lexeme is lexemeOf(folded), remembered.
func (l *Lexicon) lexeme(folded string) string {
	if l == nil {
		return lexemeOf(folded)
	}
	l.mu.Lock()
	lex, ok := l.words[folded]
	l.mu.Unlock()
	if ok {
		return lex
	}
	lex = lexemeOf(folded)
	l.mu.Lock()
	if len(l.words) >= l.max {
		l.words = make(map[string]string, l.max)
	}
	l.words[folded] = lex
	l.mu.Unlock()
	return lex
}
