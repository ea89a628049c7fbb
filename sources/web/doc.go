// Package web polls and validates `source_type = 'web'` sources: any HTML
// page becomes a source that yields exactly one feed item per poll
// (DESIGN.md §2). Pages are fetched through Firecrawl when it is configured,
// otherwise through the daemon's hardened native fetcher, optionally
// honouring robots.txt (rules and Crawl-delay).
package web
