package summary

import (
	"strings"
	"unicode"
)

// DependsOnEarlier reports a sentence that leans on one before it: it
// opens (after any opening quotation mark) with a discourse connective
// ("However", "Now,", "In addition", "Meanwhile") or a pronoun or
// demonstrative pointing back ("He", "They", "Its", "These", "This" but
// not "This week"). Read first, such a sentence leaves the reader asking
// who or what; a summary never opens with one unless it is the article's
// own first sentence.
func DependsOnEarlier(sentence string) bool {
	s := strings.TrimLeftFunc(sentence, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(openers, r)
	})
	// Four words at most are read: the longest phrase connective.
	words := make([]string, 0, 4)
	for w := range strings.FieldsSeq(s) {
		if words = append(words, w); len(words) == 4 {
			break
		}
	}
	if len(words) == 0 {
		return false
	}
	key := func(i int) string {
		if i >= len(words) {
			return ""
		}
		return strings.ToLower(strings.TrimRight(words[i], ",;:"))
	}
	first := key(0)
	comma := strings.HasSuffix(words[0], ",")
	switch {
	case connectives[first], pointers[first]:
		return true
	case connectivesWithComma[first]:
		return comma
	case first == "this" || first == "that":
		return !timeNouns[key(1)]
	}
	if len(words) > 1 {
		two := first + " " + key(1)
		if phraseConnectives[two] || len(words) > 2 && phraseConnectives[two+" "+key(2)] ||
			len(words) > 3 && phraseConnectives[two+" "+key(2)+" "+key(3)] {
			return true
		}
	}
	return false
}

// connectives open a sentence that continues an argument.
var connectives = set(`however but and or nor yet also meanwhile moreover furthermore thus therefore besides
	nevertheless nonetheless additionally consequently hence accordingly subsequently afterwards afterward otherwise
	similarly likewise indeed plus instead`)

// connectivesWithComma continue an argument when a comma follows them
// ("Now, after …", "Later, he said"), not otherwise ("Now in its tenth
// year", "Later this month", "So far").
var connectivesWithComma = set(`now then later earlier finally so still again there here too`)

// pointers are pronouns and determiners that refer to something named
// before.
var pointers = set(`he she it they him her them his its their theirs these those such latter former`)

// timeNouns make "this"/"that" a time, not a reference: "This week, …".
var timeNouns = set(`year week month morning afternoon evening night weekend season summer winter spring autumn
	fall time decade century quarter day`)

// phraseConnectives are connectives of several words.
var phraseConnectives = map[string]bool{
	"in addition": true, "as a result": true, "on the other hand": true, "even so": true, "after that": true,
	"by contrast": true, "in contrast": true, "at the same time": true, "for example": true, "for instance": true,
	"in turn": true, "as well": true, "in fact": true, "of course": true, "in other words": true,
	"that said": true, "the latter": true, "the former": true, "the same": true, "all the same": true,
}
