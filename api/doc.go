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
// bodies over 1 MiB are refused) into the source service's input types;
// the service checks them before anything is written, as it does for the
// command line. Every error is JSON: {"error": "...", "fields": {"name":
// "reason"}}, its status chosen in errors.go.
package api
