package store

import (
	"strings"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/model"
)

// CleanText makes s storable the same way in both databases: NUL bytes and
// invalid UTF-8 are removed. PostgreSQL refuses both in text columns
// ("invalid byte sequence for encoding UTF8: 0x00") and SQLite would keep
// them, so without this one hostile feed could wedge a PostgreSQL source
// while the same feed worked on SQLite.
func CleanText(s string) string {
	if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, ""), "\x00", "")
}

func cleanPtr(s *string) *string {
	if s == nil {
		return nil
	}
	c := CleanText(*s)
	return &c
}

func cleanAll(vals []string) []string {
	if vals == nil {
		return nil
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = CleanText(v)
	}
	return out
}

// truncate cuts s to at most n bytes on a rune boundary: a cut inside a
// multi-byte character would be invalid UTF-8, which PostgreSQL refuses.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// cleaned is the poll with every text field made storable: the one place
// where what a feed, a page or an error message carries is made fit for
// the database.
func cleaned(p model.PollSave) model.PollSave {
	arts := make([]model.NewArticle, len(p.Articles))
	for i, na := range p.Articles {
		a := na.Article
		a.ExternalURL = CleanText(a.ExternalURL)
		a.ExternalID = cleanPtr(a.ExternalID)
		a.Title = CleanText(a.Title)
		a.Author = CleanText(a.Author)
		a.Summary = CleanText(a.Summary)
		a.ContentMarkdown = CleanText(a.ContentMarkdown)
		a.ExtractionMethod = CleanText(a.ExtractionMethod)
		a.MatchedTerms = cleanAll(a.MatchedTerms)
		a.ContentTextHash = CleanText(a.ContentTextHash)
		a.Language = CleanText(a.Language)
		a.ExtractiveSummary = CleanText(a.ExtractiveSummary)
		arts[i] = model.NewArticle{Article: a, Promote: na.Promote, Story: na.Story}
	}
	p.Articles = arts
	u := &p.Source
	u.Status = CleanText(u.Status)
	u.Error = CleanText(u.Error)
	u.ETag = cleanPtr(u.ETag)
	u.LastModified = cleanPtr(u.LastModified)
	u.Title = CleanText(u.Title)
	u.NextPollReason = CleanText(u.NextPollReason)
	u.HubURL = cleanPtr(u.HubURL)
	u.SelfURL = cleanPtr(u.SelfURL)
	u.SiteURL = CleanText(u.SiteURL)
	p.Run.Outcome = CleanText(p.Run.Outcome)
	p.Run.Error = CleanText(p.Run.Error)
	return p
}
