package extract

import (
	"reflect"
	"testing"
	"time"
)

func utc(s string) *time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	t = t.UTC()
	return &t
}

func TestParseMetadataSources(t *testing.T) {
	tests := []struct {
		name string
		page string
		want Metadata
	}{
		{
			name: "json-ld article with author object and image object",
			page: `<html><head><script type="application/ld+json">
{"@context":"https://schema.org","@type":"Article","headline":"Ledger &amp; ink","description":"How ledgers work.",
 "author":{"@type":"Person","name":"Ada Lovelace"},"datePublished":"2024-03-05T10:00:00+02:00",
 "dateModified":"2024-03-06","image":{"@type":"ImageObject","url":"/img/ledger.jpg"},"inLanguage":"en",
 "keywords":"accounting, history","publisher":{"@type":"Organization","name":"Counting House"},
 "mainEntityOfPage":{"@type":"WebPage","@id":"https://ex.org/ledgers"}}
</script></head><body></body></html>`,
			want: Metadata{Title: "Ledger & ink", Author: "Ada Lovelace", Description: "How ledgers work.", Language: "en",
				CanonicalURL: "https://ex.org/ledgers", SiteName: "Counting House", Image: "https://site.example/img/ledger.jpg",
				Published: utc("2024-03-05T08:00:00Z"), Modified: utc("2024-03-06T00:00:00Z"), Tags: []string{"accounting", "history"}},
		},
		{
			name: "json-ld @graph with author reference and array of authors",
			page: `<html><head><script type="application/ld+json">
{"@context":"https://schema.org","@graph":[
 {"@type":"WebSite","@id":"#site","name":"Graph Times"},
 {"@type":"WebPage","@id":"#page","name":"Page name, not the headline"},
 {"@type":["BlogPosting"],"headline":"Graphs all the way","author":[{"@id":"#p1"},"Bo Second"],
  "datePublished":"Tue, 02 Jan 2024 15:04:05 GMT"},
 {"@type":"Person","@id":"#p1","name":"Al First"}]}
</script></head><body></body></html>`,
			want: Metadata{Title: "Graphs all the way", Author: "Al First, Bo Second", SiteName: "Graph Times",
				Published: utc("2024-01-02T15:04:05Z")},
		},
		{
			name: "json-ld beats open graph; broken json-ld is skipped",
			page: `<html><head>
<script type="application/ld+json">{ this is not json</script>
<script type="application/ld+json"><!--{"@type":"NewsArticle","headline":"From JSON-LD"}--></script>
<meta property="og:title" content="From OG"><meta property="og:description" content="OG description">
</head><body></body></html>`,
			want: Metadata{Title: "From JSON-LD", Description: "OG description"},
		},
		{
			name: "microdata",
			page: `<html><body><div itemscope itemtype="https://schema.org/NewsArticle">
<h1 itemprop="headline">Micro headline</h1>
<span itemprop="author" itemscope itemtype="https://schema.org/Person"><span itemprop="name">Mia Data</span></span>
<time itemprop="datePublished" datetime="2023-11-20T09:15:00Z">Nov 20</time>
<meta itemprop="dateModified" content="2023-11-21T10:00:00-05:00">
<img itemprop="image" src="pic.png">
<div itemprop="publisher" itemscope itemtype="https://schema.org/Organization"><meta itemprop="name" content="Micro Daily"></div>
</div></body></html>`,
			want: Metadata{Title: "Micro headline", Author: "Mia Data", SiteName: "Micro Daily", Image: "https://site.example/a/pic.png",
				Published: utc("2023-11-20T09:15:00Z"), Modified: utc("2023-11-21T15:00:00Z")},
		},
		{
			name: "open graph and twitter cards",
			page: `<html><head>
<meta property="og:title" content="OG title"><meta property="og:site_name" content="OG Site">
<meta property="og:url" content="https://site.example/og-url"><meta property="og:image" content="//cdn.example/i.jpg">
<meta property="og:locale" content="fr_FR"><meta property="article:published_time" content="2022-07-01T12:00:00+02:00">
<meta property="article:modified_time" content="2022-07-02T12:00:00Z"><meta property="article:author" content="https://site.example/people/x">
<meta property="article:tag" content="one"><meta property="article:tag" content="two">
<meta name="twitter:description" content="Twitter description"></head><body></body></html>`,
			want: Metadata{Title: "OG title", Description: "Twitter description", Language: "fr-FR", CanonicalURL: "https://site.example/og-url",
				SiteName: "OG Site", Image: "https://cdn.example/i.jpg", Published: utc("2022-07-01T10:00:00Z"),
				Modified: utc("2022-07-02T12:00:00Z"), Tags: []string{"one", "two"}},
		},
		{
			name: "plain meta tags and dublin core",
			page: `<html><head><meta name="author" content="By Meta Author"><meta name="description" content="Meta description">
<meta name="keywords" content="alpha; beta"><meta name="DC.date" content="2021-05-04">
<meta name="dcterms.modified" content="May 6, 2021"><meta http-equiv="content-language" content="de"></head><body></body></html>`,
			want: Metadata{Author: "Meta Author", Description: "Meta description", Language: "de", Tags: []string{"alpha", "beta"},
				Published: utc("2021-05-04T00:00:00Z"), Modified: utc("2021-05-06T00:00:00Z")},
		},
		{
			name: "heuristics: title, html lang, rel author, time datetime, canonical link",
			page: `<html lang="nl"><head><title>Heuristic title | Site X</title><meta property="og:site_name" content="Site X">
<link rel="canonical" href="/canonical/path"><link rel="alternate" type="application/rss+xml" href="/feed.xml">
<link rel="alternate" type="application/atom+xml" href="https://other.example/atom"><link rel="alternate" hreflang="de" href="/de/"></head>
<body><p>Posted by <a rel="author" href="/u/1">Hugo Heuristic</a> on <time datetime="2020-02-29T23:30:00-01:00">Feb 29</time></p></body></html>`,
			want: Metadata{Title: "Heuristic title", Author: "Hugo Heuristic", Language: "nl", CanonicalURL: "https://site.example/canonical/path",
				SiteName: "Site X", Published: utc("2020-03-01T00:30:00Z"),
				FeedLinks: []string{"https://site.example/feed.xml", "https://other.example/atom"}},
		},
		{
			name: "canonical link beats og:url and JSON-LD url; base href resolves it",
			page: `<html><head><base href="https://base.example/dir/"><link rel="canonical" href="page.html">
<meta property="og:url" content="https://site.example/og"><script type="application/ld+json">{"@type":"Article","url":"https://site.example/ld"}</script></head></html>`,
			want: Metadata{CanonicalURL: "https://base.example/dir/page.html"},
		},
		{
			name: "byline heuristic",
			page: `<html><body><div class="byline">By Bea Byline, March 3, 2024</div></body></html>`,
			want: Metadata{Author: "Bea Byline"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseMetadata([]byte(tt.page), "https://site.example/a/b.html")
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseMetadata:\n got %s\nwant %s", describe(got), describe(tt.want))
			}
		})
	}
}

// describe prints a Metadata with its dates readable.
func describe(m Metadata) string {
	f := func(t *time.Time) string {
		if t == nil {
			return "nil"
		}
		return t.Format(time.RFC3339)
	}
	type alias Metadata
	a := alias(m)
	a.Published, a.Modified = nil, nil
	return fmtAny(a) + " published=" + f(m.Published) + " modified=" + f(m.Modified)
}

func TestParseDate(t *testing.T) {
	tests := []struct {
		in   string
		want string // RFC 3339 in UTC, "" for no date
	}{
		{"2024-03-05T10:00:00+02:00", "2024-03-05T08:00:00Z"},
		{"2024-03-05T10:00:00.123Z", "2024-03-05T10:00:00Z"},
		{"2024-03-05T10:00:00+0200", "2024-03-05T08:00:00Z"},
		{"2024-03-05T10:00", "2024-03-05T10:00:00Z"},
		{"2024-03-05 10:00:00", "2024-03-05T10:00:00Z"},
		{"2024-03-05", "2024-03-05T00:00:00Z"},
		{"2024/03/05", "2024-03-05T00:00:00Z"},
		{"20240305", "2024-03-05T00:00:00Z"},
		{"Tue, 05 Mar 2024 10:00:00 GMT", "2024-03-05T10:00:00Z"},
		{"Tue, 05 Mar 2024 10:00:00 +0100", "2024-03-05T09:00:00Z"},
		{"Tue, 5 Mar 2024 10:00:00 EST", "2024-03-05T15:00:00Z"},
		{"March 5, 2024", "2024-03-05T00:00:00Z"},
		{"Mar 5, 2024", "2024-03-05T00:00:00Z"},
		{"March 5th, 2024", "2024-03-05T00:00:00Z"},
		{"5 March 2024", "2024-03-05T00:00:00Z"},
		{"Tuesday, March 5, 2024", "2024-03-05T00:00:00Z"},
		{"March 5, 2024 at 3:04 pm", "2024-03-05T15:04:00Z"},
		{"Published: March 5, 2024", "2024-03-05T00:00:00Z"},
		{"05.03.2024", "2024-03-05T00:00:00Z"},
		{"1709632800", "2024-03-05T10:00:00Z"},
		{"1709632800000", "2024-03-05T10:00:00Z"},
		{"2024-03-05T10:00:00+02:00 (updated)", "2024-03-05T08:00:00Z"},
		{"yesterday", ""},
		{"", ""},
		{"1850-01-01", ""},
		{"not a date at all", ""},
	}
	for _, tt := range tests {
		got, ok := ParseDate(tt.in)
		gotS := ""
		if ok {
			gotS = got.Format(time.RFC3339)
			if got.Location() != time.UTC {
				t.Errorf("ParseDate(%q) not in UTC: %v", tt.in, got.Location())
			}
		}
		if gotS != tt.want {
			t.Errorf("ParseDate(%q) = %q, want %q", tt.in, gotS, tt.want)
		}
	}
}
