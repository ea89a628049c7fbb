package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/feedpoller/feedpoller/service"
)

// DigestInput are digest's arguments: the REST digest's query.
type DigestInput struct {
	WorkspaceID int64  `json:"workspace_id,omitempty" jsonschema:"the workspace; a workspace token's own by default"`
	Since       string `json:"since,omitempty" jsonschema:"a duration back from until (24h, 7d) or an RFC 3339 time; 24h by default"`
	Until       string `json:"until,omitempty" jsonschema:"an RFC 3339 time; now by default"`
	Format      string `json:"format,omitempty" jsonschema:"markdown (default), json or compact (a token-budgeted digest for a prompt)"`
	MaxTokens   int    `json:"max_tokens,omitempty" jsonschema:"the compact format's budget in tokens (cl100k_base, counted exactly); the configured digest.max_tokens by default"`
}

// DigestOutput is digest's answer.
type DigestOutput struct {
	WorkspaceID int64  `json:"workspace_id"`
	Format      string `json:"format"`
	MediaType   string `json:"media_type"`
	Stories     int    `json:"stories" jsonschema:"the stories the digest holds"`
	// Text is the rendered digest, exactly as GET …/digest answers it.
	Text string `json:"text"`
}

func (o DigestOutput) readableText() string { return o.Text }

func (h *handlers) digest(ctx context.Context, req *sdk.CallToolRequest, in DigestInput) (DigestOutput, error) {
	_, ws, err := h.workspace(ctx, req, in.WorkspaceID)
	if err != nil {
		return DigestOutput{}, err
	}
	d, err := h.svc.Digest(ctx, ws, service.DigestRequest{Since: in.Since, Until: in.Until, Format: in.Format, MaxTokens: in.MaxTokens})
	if err != nil {
		return DigestOutput{}, err
	}
	out := DigestOutput{WorkspaceID: ws, Format: in.Format, MediaType: d.MediaType, Text: string(d.Body)}
	if out.Format == "" {
		out.Format = "markdown"
	}
	if d.Built != nil {
		out.Stories = len(d.Built.Stories)
	}
	return out, nil
}
