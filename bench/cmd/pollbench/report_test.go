package main

import (
	"strings"
	"testing"
)

// TestRelationsReport: each relation's bytes per article in every
// variant, the first variant's largest first, a relation one variant
// lacks shown as "–" there and last when only the other has it, and the
// first variant's bytes per article ÷ the other's.
func TestRelationsReport(t *testing.T) {
	cur := variant{name: "current", layout: layoutMany}
	old := variant{name: "aac6f58", layout: layoutMany}
	stored := []storage{
		{Variant: old.label(), DB: "postgres", Sources: 10, Articles: 200,
			Relations: map[string]int64{"feed_articles": 400000, "story_bands": 20000, "story_terms": 100000}},
		{Variant: cur.label(), DB: "postgres", Sources: 10, Articles: 100,
			Relations: map[string]int64{"feed_articles": 300000, "story_terms": 40000, "story_terms_pkey": 50000}},
		{Variant: cur.label(), DB: "sqlite", Sources: 10, Articles: 100},
	}
	var sb strings.Builder
	cfg, err := parseFlags([]string{"-relations"}, &sb)
	if err != nil || !cfg.relations {
		t.Fatalf("-relations: %v, relations %v", err, cfg.relations)
	}
	writeRelations(&sb, []variant{cur, old}, stored)
	got := sb.String()
	want := `
Bytes per article by relation, postgres, 10 sources (current/many ÷ variant)

| relation | current/many | aac6f58/many | ÷ aac6f58/many |
|---|---:|---:|---:|
| feed_articles | 3000 | 2000 | 1.50× |
| story_terms_pkey | 500 | – | – |
| story_terms | 400 | 500 | 0.80× |
| story_bands | – | 100 | – |
`
	if got != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
}
