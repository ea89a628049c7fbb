package lexemes

import (
	"strings"
	"unicode"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
)

// English is the Snowball English stem of a folded word, the stemmer of
// PostgreSQL's english configuration; words of one or two characters and
// numbers are kept as they are.
func English(word string) string {
	if len(word) < 3 || strings.IndexFunc(word, unicode.IsLetter) < 0 {
		return word
	}
	env := snowballstem.NewEnv(word)
	english.Stem(env)
	return env.Current()
}

// IsStopWord reports whether a folded word is one of the English stop
// words, which take a position in a document but are not indexed.
func IsStopWord(w string) bool { return stopWords[w] }

// stopWords are the Snowball project's English stop words, the list of
// PostgreSQL's english configuration.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`i me my myself we our ours ourselves you your yours yourself yourselves
		he him his himself she her hers herself it its itself they them their theirs themselves what which who
		whom this that these those am is are was were be been being have has had having do does did doing a an
		the and but if or because as until while of at by for with about against between into through during
		before after above below to from up down in out on off over under again further then once here there
		when where why how all any both each few more most other some such no nor not only own same so than too
		very s t can will just don should now`) {
		m[w] = true
	}
	return m
}()
