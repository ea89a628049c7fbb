// Package feedfarm serves many synthetic RSS 2.0 and Atom feeds from one
// process so that any feed reader (feedpoller or another) can be measured
// against the same, reproducible load.
//
// Every feed lives at /feed/{n}.xml and links its items to /item/{n}/{k},
// which serve HTML article pages on the farm's own host; with
// Options.Sites its items and site link point at a domain of the feed's
// own instead (feed{n}.example, not served), as separate outlets' would. Content is a pure
// function of Options.Seed, the feed number and the item number, so nothing
// but a few counters per feed is kept in memory: ten thousand feeds cost a
// few megabytes, not the gigabyte their bodies would.
//
// The prose comes from one of two text models (Options.Text). The default,
// TextUniform, draws every word uniformly from about 190 words, so every
// article resembles every other; earlier figures were measured on it and it
// stays byte for byte as it was. TextNews is a model of news, not real
// data: general words follow a Zipf law of exponent 1 over 25 000 words
// (the function words first, then pseudo-words built from syllables), and
// every item reports one event of its publication time's six-hour slot,
// picked with a Zipf law over the slot's events, so a few events are
// reported by many feeds and most by one or two. An event's reports repeat
// its own names, topic words and number, densest in the title and the
// lead, and draw everything else independently: they share its terms but
// few word sequences.
//
// A fixed, seeded share of feeds (Options.ChangeShare) is "changing": each of
// its requests after the first finds one new item at the top. The others
// never change, so a reader that sends back the ETag or Last-Modified it was
// given is answered 304 Not Modified.
//
// The farm counts requests per feed (200s and 304s apart) and keeps the most
// recent request times of each feed, readable with Farm.Stats or as JSON from
// /_stats; POST /_stats/reset starts the count afresh.
package feedfarm
