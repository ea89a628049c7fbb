// Package web polls and validates `source_type = 'web'` sources: any HTML
// page becomes a source that yields exactly one feed item per poll. Pages
// are fetched through Firecrawl when it is configured, otherwise through
// the daemon's hardened native fetcher, optionally honouring robots.txt
// (rules and Crawl-delay). Either way the URL answers to the fetcher's
// address policy.
package web
