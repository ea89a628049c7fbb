// Package api is feedpoller's admin REST API: workspaces, feed sources,
// articles, content items and tokens under /api/intelligence/, plus the
// unauthenticated /healthz, /readyz, /metrics and /openapi.yaml.
//
// Every /api/ request carries a bearer token. The admin token (configured,
// or generated once by EnsureAdminToken) may do anything; a workspace token
// acts only inside its workspace, and any other workspace's ids answer 404
// to it, exactly as ids that do not exist, so nothing leaks.
//
// Request bodies are decoded strictly (unknown fields, wrong types and
// bodies over 1 MiB are refused) and validated with
// go-playground/validator/v10 before anything is written; every error is
// JSON: {"error": "...", "fields": {"name": "reason"}}.
package api
