package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/feedpoller/feedpoller/analysis/digest"
	"github.com/feedpoller/feedpoller/analysis/summary"
	"github.com/feedpoller/feedpoller/analysis/tokens"
	"github.com/feedpoller/feedpoller/model"
)

// DigestRequest is a digest as a caller asks for it, in the words of the
// API's query and the CLI's flags.
type DigestRequest struct {
	// Since is a duration back from Until ("24h", "7d") or a time; ""
	// is 24 hours. Until is a time; "" is now.
	Since, Until string
	// Format is markdown (""), json or compact.
	Format string
	// MaxTokens is the compact format's budget (0: Options.DigestMaxTokens).
	MaxTokens int
}

// Digest is a rendered digest.
type Digest struct {
	Body []byte
	// MediaType is the body's: text/markdown, application/json or
	// text/plain, with the charset.
	MediaType string
	// Built is what was rendered (the stories, citations and gaps).
	Built *digest.Digest
}

// Digest builds and renders a workspace's digest. Bad input (format,
// window, a budget that does not fit one citation) is ErrInvalid naming
// the field; an empty window is a digest that says so.
func (s *Service) Digest(ctx context.Context, workspaceID int64, req DigestRequest) (*Digest, error) {
	ws, err := s.GetWorkspace(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	format, err := digest.ParseFormat(req.Format)
	if err != nil {
		return nil, invalidDigest(err)
	}
	win, err := digest.ParseWindow(req.Since, req.Until, now)
	if err != nil {
		return nil, invalidDigest(err)
	}
	maxTokens := req.MaxTokens
	if maxTokens == 0 {
		maxTokens = s.opts.DigestMaxTokens
	}
	if maxTokens < 0 {
		return nil, Invalid("invalid digest request", map[string]string{"max_tokens": fmt.Sprintf("%d must be a positive number of tokens", maxTokens)})
	}
	if s.opts.Digests == nil {
		return nil, &Error{Kind: ErrUnavailable, Message: "digests are not available: this process runs without a digest store"}
	}
	in, err := s.digestInput(ctx, ws, win, now)
	if err != nil {
		return nil, err
	}
	d := digest.Build(in, digest.Options{})
	var tc digest.TokenCounter
	if format == digest.FormatCompact {
		if tc, err = s.tokenCounter(); err != nil {
			return nil, err
		}
	}
	body, mediaType, err := digest.Render(d, format, maxTokens, tc)
	if errors.Is(err, digest.ErrBudget) {
		return nil, invalidDigest(err)
	}
	if err != nil {
		return nil, fmt.Errorf("render the digest of workspace %d: %w", ws.ID, err)
	}
	return &Digest{Body: body, MediaType: mediaType, Built: d}, nil
}

// invalidDigest is ErrInvalid for a digest request value the digest
// package refused, naming the field once: "invalid digest request:
// max_tokens 10 is below …".
func invalidDigest(err error) error {
	var fe *digest.FieldError
	if errors.As(err, &fe) {
		return Invalid("invalid digest request", map[string]string{fe.Field: fe.Problem})
	}
	var be *digest.BudgetError
	if errors.As(err, &be) {
		return Invalid("invalid digest request", map[string]string{digest.BudgetField: be.Problem()})
	}
	return fmt.Errorf("read the digest request: %w", err)
}

// digestInput reads the window's stories and the sources' poll state.
func (s *Service) digestInput(ctx context.Context, ws *model.Workspace, win digest.Window, now time.Time) (digest.Input, error) {
	arts, err := s.opts.Digests.DigestArticles(ctx, ws.ID, win.Since, win.Until)
	if err != nil {
		return digest.Input{}, err
	}
	srcs, err := s.opts.Digests.DigestSources(ctx, ws.ID, win.Since, win.Until)
	if err != nil {
		return digest.Input{}, err
	}
	in := digest.Input{
		Workspace:   digest.Workspace{ID: ws.ID, Name: ws.Name, DecayClass: model.EffectiveClass(model.DecayClass(ws.DecayClass), "")},
		Window:      win,
		GeneratedAt: now,
		Sources:     srcs,
	}
	for _, src := range srcs {
		if src.Active {
			in.SourcesAnalyzed++
		}
	}
	// The articles come ordered by story.
	for _, a := range arts {
		if a.Summary == "" && a.FallbackSummary != "" {
			// Stored before extractive summaries were written: summarise
			// the feed's description instead.
			a.Summary = summary.Summarize(a.FallbackSummary, summary.Options{})
		}
		if n := len(in.Stories); n == 0 || in.Stories[n-1].ID != a.StoryID {
			in.Stories = append(in.Stories, digest.Story{ID: a.StoryID})
		}
		last := &in.Stories[len(in.Stories)-1]
		last.Articles = append(last.Articles, a.DigestArticle)
	}
	return in, nil
}

// tokenCounter is the configured counter, or cl100k_base's.
func (s *Service) tokenCounter() (digest.TokenCounter, error) {
	if s.opts.Tokens != nil {
		return s.opts.Tokens, nil
	}
	c, err := tokens.For(tokens.CL100kBase)
	if err != nil {
		return nil, fmt.Errorf("load the token counter: %w", err)
	}
	return c, nil
}
