// Package firecrawltest is a loopback fake of Firecrawl's v1 scrape API
// (POST /v1/scrape) for tests. It follows the contract recorded in
// ../shared/firecrawl-v1.md §4 closely enough that the real Go SDK
// (github.com/mendableai/firecrawl-go/v2 v2.4.0) produces the same errors
// and documents against it as against Firecrawl itself: the processing
// order that decides which error wins, the exact error bodies, the target's
// own status passed through as metadata.statusCode, and the infrastructure
// faults (gateway pages, truncated JSON, stalls, dropped connections) that
// the SDK handles worst.
//
// The fake never fetches the target URL: tests register a Scenario per
// target (exact URL or host) whose Page supplies the html and metadata.
// Like the real API it rejects targets without a dotted TLD, so tests use
// target URLs such as https://example.com/page.
package firecrawltest
