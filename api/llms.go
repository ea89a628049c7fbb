package api

import (
	"net/http"
	"strings"
)

// llmsTxt introduces the daemon to an agent pointed at it, in the
// llms.txt convention: a title, a one-paragraph summary, then sections of
// links with a note each. Links are relative to the daemon's own address.
const llmsTxt = `# feedpoller

> feedpoller polls RSS/Atom/JSON feeds and web pages, turns each item into clean, deduplicated
> Markdown, scores it against what each workspace cares about, and promotes the relevant ones to
> content items. Agents read it over MCP (search, articles at a chosen level of detail, digests, sources) or
> over the REST API. Every request but this file, /healthz, /readyz, /metrics and /openapi.yaml needs
> "Authorization: Bearer <token>"; a workspace token sees its own workspace only.

## MCP
{{mcp}}
- [MCP tools and search syntax](https://github.com/feedpoller/feedpoller/blob/main/docs/mcp.md): search, get_article, digest, list_sources, add_source, poll_source; phrases, prefix*, -exclusions, OR

## REST API
- [OpenAPI document](/openapi.yaml): every operation, its parameters and answers
- [Workspaces](/api/intelligence/workspaces): the workspaces the token may see
- [Content items](/api/intelligence/workspaces/{id}/content-items): promoted articles as Markdown, newest first; q= searches the full-text index, with since, until, min_score, source_id
- [Articles](/api/intelligence/workspaces/{id}/articles): every stored article of a workspace, same filters
- [Sources](/api/intelligence/workspaces/{id}/sources): feed sources with their poll state, next poll and its reason
- [Digest](/api/intelligence/workspaces/{id}/digest): the workspace's stories over a window (since, until), format markdown, json or compact (max_tokens), every statement cited

## Optional
- [Health](/healthz): the process answers
- [Readiness](/readyz): the database answers and accepts writes
`

const mcpLine = `- [MCP endpoint](/mcp): Streamable HTTP, bearer auth with the API's tokens; tools search, get_article, digest, list_sources, add_source, poll_source; each content item is the resource feedpoller://workspaces/{id}/items/{item}`

// serveLLMsTxt answers /llms.txt, without auth: it says nothing a
// visitor could not read in the repository.
func (s *Server) serveLLMsTxt(w http.ResponseWriter, _ *http.Request) {
	line := mcpLine
	if s.mcp == nil {
		line = "- This daemon serves no MCP endpoint; run `feedpoller mcp` on its host for the stdio server."
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write([]byte(strings.Replace(llmsTxt, "{{mcp}}", line, 1)))
}
