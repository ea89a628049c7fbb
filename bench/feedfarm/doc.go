// Package feedfarm serves many synthetic RSS 2.0 and Atom feeds from one
// process so that any feed reader (feedpoller or another) can be measured
// against the same, reproducible load.
//
// Every feed lives at /feed/{n}.xml and links its items to /item/{n}/{k},
// which serve HTML article pages on the farm's own host. Content is a pure
// function of Options.Seed, the feed number and the item number, so nothing
// but a few counters per feed is kept in memory: ten thousand feeds cost a
// few megabytes, not the gigabyte their bodies would.
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
