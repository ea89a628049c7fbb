package main

import (
	"net/url"
	"slices"
	"strings"

	"github.com/feedpoller/feedpoller/internal/ecbplus"
)

// doc is one ECB+ document as a feed would carry it: a title, a body of
// paragraphs, the address it was published at (ECB+ documents only; the
// older ECB ones have none) and its gold event.
type doc struct {
	Name  string // file name, e.g. 36_1ecbplus.xml
	Topic int
	// Event is the gold event: the topic and the sub-topic ("36ecb",
	// "36ecbplus").
	Event string
	URL   string
	Title string
	Body  string
}

// loadECB reads every document of the ECB+ folder (one sub-folder per
// topic of tokenised XML files).
func loadECB(dir string) ([]doc, error) {
	var docs []doc
	err := ecbplus.Walk(dir, func(d ecbplus.Doc) error {
		dc := toDoc(d.Sentences)
		dc.Name, dc.Topic, dc.Event = d.Name, d.Topic, d.Event
		docs = append(docs, dc)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(docs, func(a, b doc) int { return strings.Compare(a.Name, b.Name) })
	return docs, nil
}

// toDoc turns sentences into what a feed item holds. An ECB+ document
// opens with its address, then its headline and its dateline in either
// order: the address becomes the item's link and the dateline is dropped
// (a feed carries the date apart, and the benchmark draws its own), so
// neither leaks into the text. The headline is the first other sentence;
// the body is the rest, three sentences a paragraph.
func toDoc(sents [][]string) doc {
	var dc doc
	if len(sents) > 0 && len(sents[0]) > 0 && strings.HasPrefix(sents[0][0], "http") {
		dc.URL = strings.Join(sents[0], "")
		sents = sents[1:]
	}
	var kept []string
	for i, s := range sents {
		if i < 4 && isDateline(s) {
			continue
		}
		kept = append(kept, detokenize(s))
	}
	if len(kept) == 0 {
		return dc
	}
	dc.Title = kept[0]
	var paras []string
	for i := 1; i < len(kept); i += 3 {
		paras = append(paras, strings.Join(kept[i:min(i+3, len(kept))], " "))
	}
	dc.Body = strings.Join(paras, "\n\n")
	return dc
}

// dateWords may make up a dateline besides figures and punctuation.
var dateWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`january february march april may june july august september october
		november december jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday
		friday saturday sunday mon tue wed thu fri sat sun am pm a.m. p.m. et est edt gmt bst cet cest pdt pst
		cdt cst utc ist published posted updated last on at by - th st nd rd`) {
		m[w] = true
	}
	return m
}()

// isDateline reports whether a sentence is only a date and time
// ("Published : April 23 , 2013 9 : 39 AM", "12 / 23 / 12 06 : 03 PM ET").
func isDateline(s []string) bool {
	if len(s) > 16 {
		return false
	}
	figures := 0
	for _, t := range s {
		l := strings.ToLower(t)
		switch {
		case strings.IndexFunc(l, func(r rune) bool { return r >= '0' && r <= '9' }) >= 0:
			figures++
		case dateWords[strings.TrimRight(l, ".,")], strings.Trim(l, ":/,.@|()-") == "":
		default:
			return false
		}
	}
	return figures > 0
}

// detokenize joins tokens as they were written: no space before
// punctuation or a clitic, none inside a figure ("6 . 1" is 6.1).
func detokenize(toks []string) string {
	var sb strings.Builder
	for i, t := range toks {
		switch t {
		case "``", "''":
			t = `"`
		}
		if i > 0 && !noSpaceBefore(toks, i, t) && !noSpaceAfter(toks[i-1]) {
			sb.WriteByte(' ')
		}
		sb.WriteString(t)
	}
	return sb.String()
}

func noSpaceBefore(toks []string, i int, t string) bool {
	switch t {
	case ".", ",", ":", ";", "!", "?", ")", "'s", "n't", "'", "%", "'re", "'ve", "'ll", "'d", "'m":
		return true
	}
	// "6 . 1", "30 , 000", "12 : 41": a figure keeps its separators
	// without spaces on either side.
	if i >= 2 && startsWithDigit(t) && endsWithDigit(toks[i-2]) {
		switch toks[i-1] {
		case ".", ",", ":":
			return true
		}
	}
	return false
}

func noSpaceAfter(prev string) bool {
	return prev == "(" || prev == "$"
}

// outletOf is the host an address was published on, without "www.".
func outletOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(u.Host), "www.")
}

func startsWithDigit(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

func endsWithDigit(s string) bool { return s != "" && s[len(s)-1] >= '0' && s[len(s)-1] <= '9' }
