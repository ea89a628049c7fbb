package digest

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/feedpoller/feedpoller/analysis/rank"
	"github.com/feedpoller/feedpoller/analysis/summary"
)

// TokenCounter counts the tokens of a text exactly, in the encoding of
// the model that reads the digest (tokens.For(tokens.CL100kBase)).
type TokenCounter interface {
	Count(text string) int
}

// DefaultMaxTokens is the compact budget when none is given.
const DefaultMaxTokens = 500

// CompactCitations is how many sources a compact story line cites: the
// article it quotes, then the first reporter (or, when that is the
// quoted one, the most reliable other source). The full formats cite
// every source.
const CompactCitations = 2

// ErrBudget reports a token budget too small for any digest text.
var ErrBudget = errors.New("token budget too small")

// BudgetError is a budget below what the first line of a digest needs
// with its citation. errors.Is(err, ErrBudget) holds.
type BudgetError struct {
	MaxTokens int
	// Need is the smallest budget that gives a digest.
	Need int
}

func (e *BudgetError) Error() string { return BudgetField + " " + e.Problem() }

// BudgetField names the budget as requests do.
const BudgetField = "max_tokens"

// Problem says what is wrong with the budget without naming it, for
// messages that name the field once ("max_tokens 10 is below …").
func (e *BudgetError) Problem() string {
	if e.MaxTokens <= 0 {
		return fmt.Sprintf("%d must be a positive number of tokens (at least %d for this digest)", e.MaxTokens, e.Need)
	}
	return fmt.Sprintf("%d is below the %d tokens the first story of this digest needs with its citation", e.MaxTokens, e.Need)
}

// Is makes errors.Is(err, ErrBudget) hold.
func (e *BudgetError) Is(target error) bool { return target == ErrBudget }

// Compact renders the digest for token-constrained contexts: a header,
// one line per story (most important first) citing sources by number,
// and the cited URLs, fitted to maxTokens by exact count: the output
// counts at most maxTokens, and one more story would not fit. When even
// the first story with its CompactCitations sources does not fit, it is
// given with its first reporter alone, then also without its summary; a
// budget that cannot hold that single citation (or, for an empty digest,
// the line that says so) is a *BudgetError.
func Compact(d *Digest, maxTokens int, tc TokenCounter) (string, error) {
	lines := compactLines(d, CompactCitations, true)
	first := min(1, len(d.Stories))
	if maxTokens <= 0 || tc.Count(lines.text(first)) > maxTokens {
		need := 0
		for _, summary := range []bool{true, false} {
			one := compactLines(d, 1, summary).text(first)
			need = tc.Count(one)
			if maxTokens > 0 && need <= maxTokens {
				return one, nil
			}
		}
		return "", &BudgetError{MaxTokens: maxTokens, Need: need}
	}
	// Estimate by line, then settle on exact counts of the whole text:
	// pieces do not add up exactly, since tokens can span line breaks.
	k, est := 0, tc.Count(lines.header)+tc.Count(lines.sourcesHead)
	for k < len(d.Stories) {
		add := tc.Count(lines.stories[k]) + 1
		for _, s := range lines.sources[k] {
			add += tc.Count(s) + 1
		}
		if est+add > maxTokens {
			break
		}
		est += add
		k++
	}
	for k < len(d.Stories) && tc.Count(lines.text(k+1)) <= maxTokens {
		k++
	}
	for k > 1 && tc.Count(lines.text(k)) > maxTokens {
		k--
	}
	return lines.text(k), nil
}

// compactDoc holds the lines of a compact digest: story i's line and the
// lines of the sources it cites first.
type compactDoc struct {
	header      string
	empty       string
	sourcesHead string
	stories     []string
	sources     [][]string
}

// text joins the header and the first k stories with their sources.
func (c *compactDoc) text(k int) string {
	var b strings.Builder
	b.WriteString(c.header)
	b.WriteByte('\n')
	if k == 0 {
		b.WriteString(c.empty)
		b.WriteByte('\n')
		return b.String()
	}
	for _, s := range c.stories[:k] {
		b.WriteString(s)
		b.WriteByte('\n')
	}
	b.WriteString(c.sourcesHead)
	b.WriteByte('\n')
	for _, ss := range c.sources[:k] {
		for _, s := range ss {
			b.WriteString(s)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func compactLines(d *Digest, maxCites int, withSummary bool) *compactDoc {
	name := summary.OneLine(d.Workspace.Name)
	if name == "" {
		name = "workspace " + strconv.FormatInt(d.Workspace.ID, 10)
	}
	c := &compactDoc{
		header: fmt.Sprintf("Digest %s, %s: %s, %s, %s, confidence %.2f.", name, windowText(d.Window),
			plural(len(d.Stories), "story"), plural(d.ArticleCount, "article"), plural(d.SourcesAnalyzed, "source"), d.Confidence),
		empty:       "No stories in this window: " + d.EmptyReason() + ".",
		sourcesHead: "Sources:",
	}
	n := 0
	for i, s := range d.Stories {
		cited := compactCited(s, maxCites)
		refs := make([]string, len(cited))
		var srcLines []string
		for j, src := range cited {
			n++
			refs[j] = strconv.Itoa(n)
			srcLines = append(srcLines, fmt.Sprintf("[%d] %s (tier %d)", n, src.URL, src.Tier))
		}
		line := fmt.Sprintf("%d. %s", i+1, clip(s.Title, 120))
		// Cut by the summary's own splitter, so "U.S." or "Dr." never
		// ends the quote.
		if sum := summary.FirstSentence(s.Summary); sum != "" && withSummary {
			line += ": " + clip(sum, 160)
		}
		line += fmt.Sprintf(" [%s] confidence %.2f %s, %s", strings.Join(refs, ","), s.Confidence,
			rank.ConfidenceLabel(s.Confidence), plural(s.SourceCount, "source"))
		if more := len(s.Sources) - len(cited); more > 0 {
			line += ", " + plural(more, "more article")
		}
		c.stories = append(c.stories, line)
		c.sources = append(c.sources, srcLines)
	}
	return c
}

// compactCited picks the sources a compact line cites: first the article
// whose title and summary it quotes, then the first reporter, then the
// others by tier, each domain once when possible.
func compactCited(s StoryReport, maxCites int) []SourceReport {
	quoted := s.Sources[s.Quoted]
	var rest []SourceReport
	for i, src := range s.Sources {
		if i != s.Quoted {
			rest = append(rest, src)
		}
	}
	// rest keeps the order of report, so the first reporter leads it
	// unless it is the quoted article.
	if s.Quoted == 0 {
		slices.SortStableFunc(rest, func(a, b SourceReport) int { return int(a.Tier) - int(b.Tier) })
	} else {
		slices.SortStableFunc(rest[1:], func(a, b SourceReport) int { return int(a.Tier) - int(b.Tier) })
	}
	out := []SourceReport{quoted}
	domains := map[string]bool{quoted.Domain: true}
	for pass := 0; pass < 2 && len(out) < maxCites; pass++ {
		for i, src := range rest {
			if len(out) == maxCites {
				break
			}
			first := i == 0 && s.Quoted != 0
			if pass == 0 && domains[src.Domain] && !first || pass == 1 && slices.ContainsFunc(out, func(o SourceReport) bool { return o.URL == src.URL }) {
				continue
			}
			domains[src.Domain] = true
			out = append(out, src)
		}
	}
	return out
}

// clip shortens s to at most n bytes at a word boundary, ending in "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut <= 0 {
		cut = n
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
	}
	return strings.TrimRight(s[:cut], " ,;:") + "…"
}
