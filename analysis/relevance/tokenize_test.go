package relevance

import (
	"slices"
	"testing"
)

func TestTokenizer(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"stems and lower-cases", "Scheduling Policies", []string{"schedul", "polici"}},
		{"punctuation splits", "large-language_model/v2.0", []string{"larg", "languag", "model", "v2", "0"}},
		{"accents removed", "Crème brûlée à São Paulo", []string{"creme", "brule", "a", "sao", "paulo"}},
		{"possessive dropped", "Google's and Meta’s plans", []string{"googl", "and", "meta", "plan"}},
		{"apostrophe splits other words", "l'intelligence don't", []string{"l", "intellig", "don", "t"}},
		{"compatibility forms folded", "ﬁnance ＡＩ", []string{"financ", "ai"}},
		{"Han split per character", "最新AI技術", []string{"最", "新", "ai", "技", "術"}},
		{"Cyrillic folded, not stemmed", "Новости ПОЛИТИКИ", []string{"новости", "политики"}},
		{"markdown syntax ignored", "## [Cron](https://example.com) `jobs`", []string{"cron", "https", "exampl", "com", "job"}},
		{"empty", " \t\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tk tokenizer
			var got []string
			tk.each(tt.in, func(st []byte) { got = append(got, string(st)) })
			if !slices.Equal(got, tt.want) {
				t.Fatalf("tokens(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzScore(f *testing.F) {
	f.Add("Scheduling ’s policies", "large-language model ﬁ 人工知能 \xff\xfe")
	f.Fuzz(func(t *testing.T, title, body string) {
		s := NewScorer(profileForFuzz(title))
		r := s.Score(title, body)
		if !(r.Score >= 0 && r.Score <= 1) {
			t.Fatalf("score %v out of range", r.Score)
		}
	})
}
