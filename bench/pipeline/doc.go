// Package pipeline holds the Go benchmarks that compare feedpoller's whole
// per-poll pipeline with the raw floor of the same work (gofeed parse plus
// HTML→Markdown of the same bytes), count the statements and database round
// trips a poll costs, time the store's dedup lookup, promotion and
// due-source claiming on SQLite and PostgreSQL, and show with EXPLAIN that
// claiming reads the partial index feed_sources_due. Everything lives in
// _test.go files; see bench/README.md for how to run them and the figures.
package pipeline
