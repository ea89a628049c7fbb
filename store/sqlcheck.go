package store

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotReadOnly is returned for a query `feedpoller sql` refuses to run.
var ErrNotReadOnly = errors.New("refused")

// checkReadQuery is the first of the read-only layers of `feedpoller sql`:
// exactly one statement, which starts with a reading keyword and names
// no function with side effects and no table of secrets (checkNames). It lexes
// quotes and comments the way the dialect does, so a ";" inside a string
// is no separator, and refuses what it cannot read (an unterminated quote).
// It is not the only guard: the connection refuses writes by itself (see
// OpenReadOnly), and PostgreSQL refuses a second statement in a prepared
// one, so where this lexer and the server's could ever disagree the server
// still runs at most one read-only statement.
func checkReadQuery(dialect, query string) error {
	lx := dialectNamed(dialect).lexicon()
	end, err := firstStatementEnd(lx, query)
	if err != nil {
		return err
	}
	if end < len(query) {
		rest, err := skipSpaceAndComments(lx, query[end+1:])
		if err != nil {
			return err
		}
		if rest != "" {
			return fmt.Errorf("%w: one statement at a time, and %q follows the first one's ';'", ErrNotReadOnly, clip(rest))
		}
	}
	head, err := skipSpaceAndComments(lx, query[:end])
	if err != nil {
		return err
	}
	head = strings.TrimLeft(head, "( \t\r\n")
	if head == "" {
		return fmt.Errorf("%w: the query is empty", ErrNotReadOnly)
	}
	word := head
	if i := strings.IndexFunc(head, func(r rune) bool { return !isWordChar(r) }); i >= 0 {
		word = head[:i]
	}
	for _, k := range lx.readKeywords {
		if strings.EqualFold(word, k) {
			return checkNames(lx, query[:end])
		}
	}
	return fmt.Errorf("%w: only reading statements run here (%s), and %q is not one",
		ErrNotReadOnly, strings.Join(lx.readKeywords, ", "), clip(word))
}

func isWordChar(r rune) bool {
	return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// clip shortens what a refusal quotes of the query, on a rune boundary.
func clip(s string) string {
	if c := truncate(s, 40); c != s {
		return c + "…"
	}
	return s
}

// firstStatementEnd returns the index of the first ";" outside quotes and
// comments, or len(q) when there is none.
func firstStatementEnd(lx lexicon, q string) (int, error) {
	for i := 0; i < len(q); {
		if q[i] == ';' {
			return i, nil
		}
		next, err := skipToken(lx, q, i)
		if err != nil {
			return 0, err
		}
		i = next
	}
	return len(q), nil
}

// skipSpaceAndComments drops leading white space and comments.
func skipSpaceAndComments(lx lexicon, q string) (string, error) {
	for i := 0; i < len(q); {
		switch {
		case q[i] == ' ' || q[i] == '\t' || q[i] == '\n' || q[i] == '\r' || q[i] == '\f':
			i++
		case strings.HasPrefix(q[i:], "--") || strings.HasPrefix(q[i:], "/*"):
			next, err := skipToken(lx, q, i)
			if err != nil {
				return "", err
			}
			i = next
		default:
			return q[i:], nil
		}
	}
	return "", nil
}

var errUnterminated = fmt.Errorf("%w: a quote or comment is not closed", ErrNotReadOnly)

// skipToken returns the index after the lexical unit starting at i: a
// quoted string or identifier, a comment, or a single other byte.
func skipToken(lx lexicon, q string, i int) (int, error) {
	rest := q[i:]
	switch {
	case strings.HasPrefix(rest, "--"):
		if j := strings.IndexByte(rest, '\n'); j >= 0 {
			return i + j + 1, nil
		}
		return len(q), nil
	case strings.HasPrefix(rest, "/*"):
		return skipBlockComment(lx, q, i)
	case q[i] == '\'':
		backslash := lx.escapeStrings && i > 0 && (q[i-1] == 'E' || q[i-1] == 'e') && (i < 2 || !isWordChar(rune(q[i-2])))
		return skipQuoted(q, i, '\'', backslash)
	case q[i] == '"':
		return skipQuoted(q, i, '"', false)
	case lx.backtickIdents && q[i] == '`':
		return skipQuoted(q, i, '`', false)
	case lx.bracketIdents && q[i] == '[':
		if j := strings.IndexByte(rest, ']'); j >= 0 {
			return i + j + 1, nil
		}
		return 0, errUnterminated
	case lx.dollarQuotes && q[i] == '$' && (i == 0 || !isWordChar(rune(q[i-1])) && q[i-1] != '$' && q[i-1] < 0x80):
		return skipDollarQuoted(q, i)
	}
	return i + 1, nil
}

// skipQuoted skips a quoted run where a doubled quote stands for itself
// (and, for PostgreSQL's E'…' strings, a backslash escapes the next byte).
func skipQuoted(q string, i int, quote byte, backslash bool) (int, error) {
	for j := i + 1; j < len(q); j++ {
		switch {
		case backslash && q[j] == '\\':
			j++
		case q[j] == quote:
			if j+1 < len(q) && q[j+1] == quote {
				j++
				continue
			}
			return j + 1, nil
		}
	}
	return 0, errUnterminated
}

// skipBlockComment skips /* … */, nested where the dialect nests them.
func skipBlockComment(lx lexicon, q string, i int) (int, error) {
	depth := 0
	for j := i; j+1 < len(q); {
		switch {
		case q[j] == '/' && q[j+1] == '*' && (depth == 0 || lx.nestedComments):
			depth++
			j += 2
		case q[j] == '*' && q[j+1] == '/':
			depth--
			j += 2
			if depth == 0 {
				return j, nil
			}
		default:
			j++
		}
	}
	return 0, errUnterminated
}

// skipDollarQuoted skips PostgreSQL's $tag$ … $tag$ string. A $ that does
// not open one ($1, a lone $) is a single byte.
func skipDollarQuoted(q string, i int) (int, error) {
	j := i + 1
	for j < len(q) && (isWordChar(rune(q[j])) || q[j] >= 0x80) {
		j++
	}
	if j >= len(q) || q[j] != '$' || (j > i+1 && q[i+1] >= '0' && q[i+1] <= '9') {
		return i + 1, nil
	}
	tag := q[i : j+1]
	if k := strings.Index(q[j+1:], tag); k >= 0 {
		return j + 1 + k + len(tag), nil
	}
	return 0, errUnterminated
}

// checkNames is the second part of the statement check: no identifier of
// the query (outside strings and comments, quoted ones included) names a
// function the dialect's lexicon denies or a table of secrets. It is a
// check of names, so it also refuses a column alias that happens to be
// called like one; the error says which name it refused and why.
func checkNames(lx lexicon, query string) error {
	for i := 0; i < len(query); {
		name, next, err := nextIdentifier(lx, query, i)
		if err != nil {
			return err
		}
		i = next
		if name == "" {
			continue
		}
		if lx.secretNames[name] {
			return fmt.Errorf("%w: %q holds secrets (webhook signing secrets, WebSub callback tokens), which feedpoller sql does not read",
				ErrNotReadOnly, name)
		}
		if lx.deniedFunction(name) {
			return fmt.Errorf("%w: %s is a function with side effects or administrative reach (locks, sleeps, signals to "+
				"other sessions, settings, sequences, large objects, server files, other databases, SQL run from text), "+
				"which feedpoller sql never calls", ErrNotReadOnly, name)
		}
	}
	return nil
}

// nextIdentifier reads the lexical unit at i and returns the identifier
// it is, lower-cased unless quoted ("" for anything else), and the index
// after it. PostgreSQL's U&"…" identifiers, whose escapes could spell any
// name, are refused.
func nextIdentifier(lx lexicon, q string, i int) (string, int, error) {
	c := q[i]
	switch {
	case c == '"' || lx.backtickIdents && c == '`':
		end, err := skipQuoted(q, i, c, false)
		if err != nil {
			return "", 0, err
		}
		doubled := string([]byte{c, c})
		return strings.ReplaceAll(q[i+1:end-1], doubled, string(c)), end, nil
	case lx.bracketIdents && c == '[':
		end, err := skipToken(lx, q, i)
		if err != nil {
			return "", 0, err
		}
		return q[i+1 : end-1], end, nil
	case isWordChar(rune(c)) && (i == 0 || !isWordChar(rune(q[i-1])) && q[i-1] != '$'):
		j := i
		for j < len(q) && (isWordChar(rune(q[j])) || q[j] >= 0x80) {
			j++
		}
		word := strings.ToLower(q[i:j])
		if lx.dollarQuotes && word == "u" && strings.HasPrefix(q[j:], `&"`) {
			return "", 0, fmt.Errorf("%w: identifiers written with Unicode escapes (U&\"…\") are not accepted here", ErrNotReadOnly)
		}
		return word, j, nil
	}
	next, err := skipToken(lx, q, i)
	return "", next, err
}

// deniedFunction reports whether name is a function the lexicon denies,
// by its exact name or a denied prefix.
func (lx lexicon) deniedFunction(name string) bool {
	if lx.deniedNames[name] {
		return true
	}
	for _, p := range lx.deniedPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// secretTableNames are the tables of secrets and, on PostgreSQL, their
// schema, by the names a query would write.
var secretTableNames = map[string]bool{"webhook_secrets": true, "websub_secrets": true, secretsSchema: true}
