package mcp

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/feedpoller/feedpoller/model"
)

// The levels of get_article, from cheapest to dearest.
const (
	LevelSummary = "summary"
	LevelOutline = "outline"
	LevelFull    = "full"
)

// Bounds of max_tokens.
const (
	defaultMaxTokens = 2000
	minMaxTokens     = 50
	maxMaxTokens     = 100000
)

// ArticleInput are get_article's arguments.
type ArticleInput struct {
	ID          int64  `json:"id" jsonschema:"the article id, as search gives it"`
	WorkspaceID int64  `json:"workspace_id,omitempty" jsonschema:"the article's workspace; a workspace token's own by default"`
	Level       string `json:"level,omitempty" jsonschema:"summary (default): a few sentences; outline: the headings with each section's first sentences; full: the whole Markdown"`
	MaxTokens   int    `json:"max_tokens,omitempty" jsonschema:"the most tokens (cl100k_base) of text to return, 50 to 100000, default 2000; a longer text is cut and next_offset continues it"`
	Offset      int    `json:"offset,omitempty" jsonschema:"where to continue: the next_offset of the previous part (0: from the start)"`
}

// ArticleOutput is get_article's answer.
type ArticleOutput struct {
	ID          int64      `json:"id"`
	WorkspaceID int64      `json:"workspace_id"`
	Title       string     `json:"title"`
	URL         string     `json:"url"`
	SourceID    *int64     `json:"source_id,omitempty" jsonschema:"left out once the source is deleted"`
	PublishedAt *time.Time `json:"published_at,omitempty" jsonschema:"left out when unknown"`
	Relevance   float64    `json:"relevance"`
	WordCount   int        `json:"word_count"`
	Level       string     `json:"level"`
	// Text is the part of the level's text from Offset on.
	Text string `json:"text"`
	// Tokens counts Text exactly, in cl100k_base; TotalTokens the whole
	// level's text.
	Tokens      int `json:"tokens"`
	TotalTokens int `json:"total_tokens"`
	Offset      int `json:"offset"`
	// NextOffset continues the text when it was cut; left out when Text
	// reaches the end.
	NextOffset *int `json:"next_offset,omitempty" jsonschema:"pass as offset to get the next part; left out when this part is the last"`
	// SummarySource says where a summary level's text comes from.
	SummarySource string `json:"summary_source,omitempty" jsonschema:"extractive: the sentences that best stand for the article, chosen when it was stored; feed: the summary the feed gave; lead: the article's first sentences, for want of either"`
}

func (o ArticleOutput) readableText() string { return o.Text }

func (h *handlers) getArticle(ctx context.Context, req *sdk.CallToolRequest, in ArticleInput) (ArticleOutput, error) {
	if in.Level == "" {
		in.Level = LevelSummary
	}
	if in.MaxTokens == 0 {
		in.MaxTokens = defaultMaxTokens
	}
	if in.ID <= 0 {
		return ArticleOutput{}, userErrorf("id must be a positive article id")
	}
	_, ws, err := h.workspace(ctx, req, in.WorkspaceID)
	if err != nil {
		return ArticleOutput{}, err
	}
	a, err := h.store.GetArticle(ctx, ws, in.ID)
	if err != nil {
		return ArticleOutput{}, err
	}
	return readArticle(h.counter, a, ws, in)
}

// readArticle is the part of an article's level that in asks for.
func readArticle(c counter, a *model.FeedArticle, ws int64, in ArticleInput) (ArticleOutput, error) {
	out := ArticleOutput{ID: a.ID, WorkspaceID: ws, Title: a.Title, URL: a.ExternalURL, SourceID: a.FeedSourceID,
		PublishedAt: a.PublishedAt, Relevance: a.RelevanceScore, WordCount: a.WordCount, Level: in.Level, Offset: in.Offset}
	var text string
	text, out.SummarySource = levelText(a, in.Level)
	if in.Offset < 0 || in.Offset > len(text) || (in.Offset < len(text) && !utf8.RuneStart(text[in.Offset])) {
		return ArticleOutput{}, userErrorf("offset %d is not a position of this article's %s text (0 to %d, as next_offset gives it)",
			in.Offset, in.Level, len(text))
	}
	out.TotalTokens = totalTokens(c, a, in.Level, text)
	out.Text, out.Tokens = chunk(c, text, in.Offset, in.MaxTokens)
	if end := in.Offset + len(out.Text); end < len(text) {
		out.NextOffset = &end
	}
	return out, nil
}

// totalTokens is the tokens of a level's whole text. The full text's are
// the title line's and the count stored with the article when it was
// saved (of its Markdown as extracted), so that reading a part of a long
// article never counts the whole of it again; the summary and the
// outline are short by construction and counted.
func totalTokens(c counter, a *model.FeedArticle, level, text string) int {
	if level == LevelFull && a.OutputTokens > 0 {
		return c.Count(fullTitle(a.Title)) + a.OutputTokens
	}
	return c.Count(text)
}

func fullTitle(title string) string { return "# " + title + "\n\n" }

// summaryLevelChars bounds the summary level: a feed may put a whole article
// in its summary.
const summaryLevelChars = 4000

// levelText is the article's text at a level. The summary is the
// extractive summary stored with the article (its most central sentences),
// else the feed's own summary, else the article's first sentences.
func levelText(a *model.FeedArticle, level string) (text, summarySource string) {
	switch level {
	case LevelOutline:
		return outline(a.Title, a.ContentMarkdown), ""
	case LevelFull:
		return fullTitle(a.Title) + a.ContentMarkdown, ""
	}
	if a.ExtractiveSummary != "" {
		return cutChars(a.ExtractiveSummary, summaryLevelChars), "extractive"
	}
	if a.Summary != "" {
		return cutChars(a.Summary, summaryLevelChars), "feed"
	}
	return firstSentences(plainText(a.ContentMarkdown), 3, 800), "lead"
}

// plainText is the prose of Markdown, headings and code left out.
func plainText(markdown string) string {
	var b strings.Builder
	walkMarkdown(markdown, func(_ int, _, prose string) {
		if prose != "" {
			b.WriteString(prose + " ")
		}
	})
	return b.String()
}
