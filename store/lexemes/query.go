package lexemes

import "strings"

// Lexeme is the lexeme of a word (as Each finds it) as a document's
// vector holds it; a stop word's is "": it matches nothing but takes its
// place, so that a phrase's words keep their distances.
func Lexeme(word string) string { return lexemeOf(Fold(word)) }

// PrefixOf is what a word typed as a prefix (releas*) matches: lexemes
// starting with the folded word, and, when its stem differs, the stem
// itself (running* finds "running", whose lexeme is run; happy* finds
// "happy", happi).
func PrefixOf(word string) (prefix, stem string) {
	folded := Fold(word)
	if stem = English(folded); stem == folded {
		stem = ""
	}
	return folded, stem
}

// Quote is a lexeme as a tsvector or tsquery literal quotes it.
func Quote(lex string) string {
	var b strings.Builder
	writeQuoted(&b, lex)
	return b.String()
}
