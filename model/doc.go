// Package model holds feedpoller's nouns: workspaces and their relevance
// profiles, feed sources, articles, content items, poll runs, tokens,
// webhooks and WebSub subscriptions, with the closed sets of values their
// fields take (source types, poll outcomes, schedule modes, states).
//
// It is a leaf: it imports nothing of feedpoller's, so every layer (the
// store, the poller, the analysis packages, the transports) can speak of
// the same things without importing one another.
package model
