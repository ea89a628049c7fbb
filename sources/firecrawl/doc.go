// Package firecrawl is the daemon's client of Firecrawl's v1 scrape API,
// built on the official Go SDK (github.com/mendableai/firecrawl-go/v2,
// pinned at v2.4.0) and hardened against the SDK's pitfalls:
//
//   - The SDK takes no context: every call builds its own FirecrawlApp whose
//     RoundTripper ties the request to the caller's ctx, with an
//     http.Client timeout (scrape timeout + 15 s) as a backstop.
//   - The SDK sends no scrape timeout: we send Options.Timeout, so Firecrawl
//     answers 408 before our backstop fires.
//   - Status codes, Retry-After and error bodies are lost in the SDK's error
//     strings: the RoundTripper records them, and failures are classified
//     from what it recorded, never by parsing SDK messages.
//   - The SDK decodes metadata case-insensitively, so <meta name="Title">
//     can replace the page title: metadata is decoded from the recorded raw
//     body into a map with exact keys.
//   - (nil, nil) results, a missing metadata object, wrongly typed fields:
//     all handled.
//   - A target that failed still arrives as success (metadata.statusCode):
//     reported as a failure of the source.
//   - The SDK never retries a scrape: Scrape retries transient failures
//     itself, never 400/401/402/403, and never a timeout (Firecrawl's job
//     runs on after a 408 or a client that stopped waiting).
//   - Bodies are read whole: the RoundTripper caps them, and hands the SDK
//     a bare success for a 200 it would otherwise copy and decode again.
//
// Firecrawl fetches whatever it is given, internal addresses included:
// every target must pass the daemon's address policy before it is sent,
// and a page whose final URL does not is discarded.
//
// Every failure is a *sources.FetchError; an APIError in its chain marks a
// failure of Firecrawl itself rather than of the page.
//
// docs/firecrawl.md describes the API as this package relies on it: the
// request, the metadata keys and their collisions, and how each answer is
// classified.
package firecrawl
