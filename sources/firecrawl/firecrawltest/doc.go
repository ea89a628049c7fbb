// Package firecrawltest is a loopback fake of Firecrawl's v1 scrape API
// (POST /v1/scrape) for tests. It follows the API as docs/firecrawl.md
// describes it, closely enough that the real Go SDK
// (github.com/mendableai/firecrawl-go/v2 v2.4.0) produces the same errors and documents against it as against
// Firecrawl itself: the processing order that decides which error wins,
// the exact error bodies, the URL checks, the target's own status passed
// through as metadata.statusCode, and the infrastructure faults (gateway
// pages, truncated JSON, stalls, dropped connections) that the SDK handles
// worst.
//
// Tests register a Scenario per target (exact URL or host) whose Page
// supplies the html and metadata. With Config.FetchTargets the fake
// fetches targets that have none for real, as a self-hosted Firecrawl
// does, with no address policy of its own; Config.Routes points target
// addresses at loopback servers. Its URL checks are the API's: they look
// at the whole URL, so "http://127.0.0.1/" and "http://localhost:8080/x"
// are refused while "http://172.31.99.10:8080/article.html" and
// "http://localhost/a.html" are accepted.
package firecrawltest
