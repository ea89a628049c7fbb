package main

import (
	"context"
	"fmt"

	"github.com/feedpoller/feedpoller/service"
)

const digestAbout = `Prints a digest of a workspace's stories over a time window: the news its sources
reported, grouped into stories across sources, most important first (by how many
independent sources carry a story, their reliability tiers and how recent it is), each
told by its most representative article, with its confidence and numbered citations,
plus the sources that failed or reported nothing in the window.

An article counts in the window it was published in (stored time when it has no date),
so a first poll of old items fills no 24-hour window: the digest then says how many were
stored but published earlier, and the --since that shows them.

  --since   a duration back from --until (24h, 90m, 7d, 2w) or a time (RFC 3339 or
            YYYY-MM-DD); default 24h
  --until   a time; default now
  --format  markdown (a report to read), json (the same, structured) or compact (one
            line per story, fitted to --max-tokens by exact cl100k_base count)

The same digest is served at GET /api/intelligence/workspaces/{id}/digest.`

func runDigest(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagsAbout(env, "digest",
		"digest --workspace ID [--since 24h] [--until T] [--format markdown|json|compact] [--max-tokens N]", digestAbout)
	wsID := fs.Int64("workspace", 0, "workspace id (required)")
	since := fs.String("since", "", "start of the window: a duration back from --until (24h, 7d) or a time (default 24h)")
	until := fs.String("until", "", "end of the window: a time, RFC 3339 or YYYY-MM-DD (default now)")
	format := fs.String("format", "markdown", "markdown, json or compact")
	maxTokens := fs.Int("max-tokens", 0, "token budget of the compact format (default digest.max_tokens)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *wsID <= 0 {
		return fmt.Errorf("--workspace is required")
	}
	if setFlags(fs)["max-tokens"] && *maxTokens <= 0 {
		return fmt.Errorf("--max-tokens %d: must be a positive whole number of tokens", *maxTokens)
	}
	return withService(ctx, env, func(svc *service.Service) error {
		d, err := svc.Digest(ctx, *wsID, service.DigestRequest{Since: *since, Until: *until, Format: *format, MaxTokens: *maxTokens})
		if err != nil {
			return err
		}
		_, err = env.stdout.Write(d.Body)
		return err
	})
}
