package mcp

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store/textquery"
)

// addTools registers the tools. Their names are fixed: agent
// configurations refer to them.
func (h *handlers) addTools(srv *sdk.Server) {
	readOnly := &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}
	addTool(h, srv, sdk.Tool{
		Name:  "search",
		Title: "Search articles",
		Description: "Full-text search over a workspace's articles, best match first. Each result has the article id " +
			"(for get_article), title, URL, source, publication time, relevance, a snippet with the matched words " +
			"between ** and **, and the article's summary. Query syntax: words (all must match), \"exact phrase\", " +
			"prefix* (at least 2 letters), -excluded, a OR b.",
		Annotations: readOnly,
	}, func(p props) {
		p["query"].MinLength, p["query"].MaxLength = ptr(1), ptr(textquery.MaxLength)
		between(p["limit"], 1, model.MaxSearchResults)
		between(p["min_relevance"], 0, 1)
		between(p["source_id"], 1, 0)
	}, h.search)
	addTool(h, srv, sdk.Tool{
		Name:  "get_article",
		Title: "Read an article",
		Description: "One article at a level of detail: summary (a few sentences), outline (the headings, each with " +
			"its section's first sentences) or full (the Markdown). At most max_tokens tokens (cl100k_base, counted " +
			"exactly) come back; when the text is longer, next_offset continues it.",
		Annotations: readOnly,
	}, func(p props) {
		p["level"].Enum = []any{LevelSummary, LevelOutline, LevelFull}
		between(p["max_tokens"], minMaxTokens, maxMaxTokens)
		between(p["offset"], 0, 0)
		between(p["id"], 1, 0)
	}, h.getArticle)
	addTool(h, srv, sdk.Tool{
		Name:  "digest",
		Title: "Digest of a time window",
		Description: "The workspace's digest of a window (the last 24 hours by default): its stories, most important " +
			"first, each with its sources' citations, confidence and what is missing. Formats: markdown, json, or " +
			"compact, which fits max_tokens (counted exactly) for a prompt.",
		Annotations: readOnly,
	}, func(p props) {
		p["format"].Enum = []any{"markdown", "json", "compact"}
		between(p["max_tokens"], 1, 0)
	}, h.digest)
	addTool(h, srv, sdk.Tool{
		Name:  "list_sources",
		Title: "List sources and their health",
		Description: "The workspace's feed sources with their health: the last poll's status and error, failures " +
			"in a row, when it was last polled, and when it is polled next and why.",
		Annotations: readOnly,
	}, nil, h.listSources)
	addTool(h, srv, sdk.Tool{
		Name:  "add_source",
		Title: "Add a source",
		Description: "Adds a feed (rss) or web page (web) to the workspace, validated by fetching it, with the same " +
			"checks and errors as the REST API. Needs a token that may write.",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(true)},
	}, func(p props) {
		p["source_type"].Enum = []any{model.SourceRSS, model.SourceWeb, model.SourceAPI}
		p["url"].MinLength, p["url"].MaxLength = ptr(1), ptr(2048)
		p["title"].MaxLength = ptr(500)
		between(p["polling_interval_minutes"], 1, 43200)
	}, h.addSource)
	addTool(h, srv, sdk.Tool{
		Name:  "poll_source",
		Title: "Poll a source now",
		Description: "Polls one source at once, whether or not it is due, and reports the outcome: items seen, new, " +
			"duplicate and promoted, or the error. Needs a token that may write.",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(true)},
	}, func(p props) { between(p["source_id"], 1, 0) }, h.pollSource)
}

// props are the properties of a tool's input schema.
type props = map[string]*jsonschema.Schema

// readable is an answer whose text is given as it is besides the
// structured answer (an article, a digest), so a client that shows only
// text shows the article.
type readable interface{ readableText() string }

// addTool registers a tool whose schemas are those of its input and
// output types: the input's with workspace_id at least 1 (every tool
// takes one) and what adjust sets (bounds, choices). run's errors reach
// the client as toolError words them.
func addTool[In, Out any](h *handlers, srv *sdk.Server, t sdk.Tool, adjust func(props),
	run func(ctx context.Context, req *sdk.CallToolRequest, in In) (Out, error)) {
	t.InputSchema = schema[In](func(p props) {
		between(p["workspace_id"], 1, 0)
		if adjust != nil {
			adjust(p)
		}
	})
	t.OutputSchema = outputSchema[Out]()
	sdk.AddTool(srv, &t, func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Out, error) {
		out, err := run(ctx, req, in)
		if err != nil {
			var none Out
			return nil, none, h.toolError(ctx, t.Name, err)
		}
		if r, ok := any(out).(readable); ok {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: r.readableText()}}}, out, nil
		}
		return nil, out, nil
	})
}

// schema is the JSON schema of a tool's input type, adjusted by adjust
// (bounds, enums) through its properties.
func schema[T any](adjust func(props)) *jsonschema.Schema {
	s := outputSchema[T]()
	adjust(s.Properties)
	return s
}

// outputSchema is the JSON schema of a type, made portable.
func outputSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		// The types are ours and fixed; this is a programming error.
		panic(fmt.Sprintf("mcp: schema of %T: %v", *new(T), err))
	}
	portable(s)
	return s
}

// portable rewrites the "type": ["null", X] the schema library gives
// pointers and slices as "type": X: several model providers accept only
// one type per value, and strict clients warn of every list. An optional
// input is left out rather than sent as null, and no answer holds a null
// (pointers are omitted when nil, lists are never nil), so the schemas
// stay true.
func portable(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) > 0 {
		types := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
		if len(types) == 1 {
			s.Type, s.Types = types[0], nil
		} else {
			s.Types = types
		}
	}
	for _, p := range s.Properties {
		portable(p)
	}
	portable(s.Items)
	portable(s.AdditionalProperties)
	for _, sub := range s.AnyOf {
		portable(sub)
	}
	for _, sub := range s.OneOf {
		portable(sub)
	}
	for _, sub := range s.Defs {
		portable(sub)
	}
}

// between bounds a numeric property (hi 0: no upper bound).
func between(s *jsonschema.Schema, lo, hi float64) {
	s.Minimum = ptr(lo)
	if hi != 0 {
		s.Maximum = ptr(hi)
	}
}

func ptr[T any](v T) *T { return &v }
