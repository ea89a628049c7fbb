// Package console is feedpoller's web console: server-rendered pages,
// under /ui/ on the API's listener, where a person signs in with an API
// token and sees what the daemon does (sources, their polls and why each
// is polled when it is, activity charts), reads what it found (digests
// with their citations, articles, search, content items), and, with a
// token that may write, adds, pauses, polls and deletes sources, imports
// OPML, and manages webhooks and tokens.
//
// Every rule is the service's and the API's: the console authenticates
// the token with api.Authenticate on every request (so a revoked token's
// session ends at once), acts through service.Service, and refuses a
// read-only token's writes itself before any of them. Pages are
// html/template with no inline script or style (the Content-Security-
// Policy allows only the console's own files), work without scripts,
// and load nothing from anywhere else: images in articles become links.
//
// Files: console.go (options, routes), session.go (sign-in, the session
// cookie and its sealed token), guard.go (headers, CSRF, who may do
// what), render.go (templates, errors), and a file per page group:
// sources.go, opml.go, activity.go with chart.go, read.go with
// markdown.go, admin.go (webhooks and tokens).
package console
