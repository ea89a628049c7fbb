// Package opml reads and writes OPML subscription lists and imports them
// into a workspace.
//
// Parse turns an OPML 1.0/2.0 body into a flat list of outlines (feeds and
// web pages), each with the category its folders or its category attribute
// give it. The body is untrusted: it is read through a byte cap, entity
// declarations are refused (nothing is ever expanded or fetched), and the
// number and nesting of outlines are bounded, each with an error that says
// which limit was hit.
//
// Export writes the list back as OPML 2.0 in the shape Miniflux and
// FreshRSS import: one folder per category, feeds as type="rss" outlines.
//
// Import plans and runs the creation of one source per outline through a
// Creator the caller supplies (the source service): duplicates within the
// file and of existing sources are skipped before any creation, creations
// run with bounded concurrency and at most one per host at a time with a
// gap between starts, and every outline gets a reported outcome.
package opml
