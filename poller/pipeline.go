package poller

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/poller/urlnorm"
	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/store"
)

// candidate is a feed item on its way to storage.
type candidate struct {
	item sources.FeedItem
	url  string // normalised: the dedup key
	link string // as resolved, for fetching and links
}

// process turns a poll's items into the articles to store. Dedup costs one
// query per poll, whatever the number of items. It returns the articles
// and how many items were duplicates of stored ones. Database lookups run
// on ctx; page fetches for extraction on netCtx, which ends earlier so the
// poll can still be saved within its lease.
func (p *Poller) process(ctx, netCtx context.Context, src store.FeedSource, items []sources.FeedItem) ([]store.NewArticle, int, error) {
	cands := make([]candidate, 0, len(items))
	seen := make(map[string]bool, len(items))
	dups := 0
	for _, it := range items {
		c, ok := p.candidateOf(src, it)
		if !ok {
			continue
		}
		if seen[c.url] {
			dups++ // the same URL twice in one feed
			continue
		}
		seen[c.url] = true
		cands = append(cands, c)
	}
	if len(cands) == 0 {
		return nil, dups, nil
	}
	urls := make([]string, 0, len(cands))
	var guids []string
	for _, c := range cands {
		urls = append(urls, c.url)
		if c.item.GUID != "" {
			guids = append(guids, c.item.GUID)
		}
	}
	known, err := p.store.KnownArticles(ctx, src.WorkspaceID, src.ID, urls, guids)
	if err != nil {
		return nil, 0, err
	}

	var out []store.NewArticle
	var canon []string // per article: its page's canonical URL when that differs
	b := &budget{pages: p.opts.MaxArticleFetches}
	for _, c := range cands {
		if c.item.GUID != "" && known.HasGUID(c.item.GUID) {
			dups++
			continue
		}
		prev, stored := known.ByURL[c.url]
		if stored && !(src.TrackChanges && src.SourceType == store.SourceWeb) {
			dups++
			continue
		}
		ex := p.extractItem(netCtx, src, c.item, c.link, b)
		hashText := ex.text
		if strings.TrimSpace(hashText) == "" {
			hashText = c.item.Title + " " + c.url
		}
		hash := contentHash(hashText)
		art := p.article(src, c, ex, hash)
		if stored {
			// A tracked page: a new revision only when its main content
			// changed, so timestamps and rotating tokens outside it do not.
			if prev.ContentTextHash == hash {
				dups++
				continue
			}
			art.Revision = prev.Revision + 1
			id := prev.ID
			art.PreviousArticleID = &id
		}
		out = append(out, store.NewArticle{Article: art})
		canon = append(canon, canonicalOf(src, c, ex))
	}
	out, dropped, err := p.dedupCanonical(ctx, src, out, canon)
	if err != nil {
		return nil, 0, err
	}
	dups += dropped
	if len(out) == 0 {
		return nil, dups, nil
	}
	scorer, err := p.profiles.scorer(ctx, src.WorkspaceID)
	if err != nil {
		return nil, 0, err
	}
	for i := range out {
		a := &out[i].Article
		r := scorer.Score(a.Title, a.ContentMarkdown)
		a.RelevanceScore = r.Score
		a.MatchedTerms = r.Matched
		out[i].Promote = scorer.Relevant(r)
	}
	return out, dups, nil
}

// candidateOf resolves and normalises an item's link. A web source's one
// item is keyed by the source URL, not where the page redirected to.
func (p *Poller) candidateOf(src store.FeedSource, it sources.FeedItem) (candidate, bool) {
	link := it.URL
	if src.SourceType == store.SourceWeb {
		link = src.URL
	}
	if link == "" && (strings.HasPrefix(it.GUID, "http://") || strings.HasPrefix(it.GUID, "https://")) {
		link = it.GUID
	}
	if link == "" {
		return p.idCandidate(src, it)
	}
	link = urlnorm.ResolveGoogleNews(link)
	norm, err := urlnorm.Normalize(link)
	if err != nil {
		p.log.Debug("item skipped: unusable link", "source_id", src.ID, "link", link, "err", err)
		return candidate{}, false
	}
	return candidate{item: it, url: norm, link: pageLink(it, link)}, true
}

// article builds the stored article. Whatever path the content took, the
// values stored are checked here: Markdown capped, the summary converted
// to Markdown (never stored as the feed's HTML), implausible dates
// dropped.
func (p *Poller) article(src store.FeedSource, c candidate, ex extraction, hash string) store.FeedArticle {
	it := c.item
	summary := summaryMarkdown(it.Summary, c.link, src.SourceType != store.SourceWeb)
	a := store.FeedArticle{
		WorkspaceID: src.WorkspaceID, ExternalURL: c.url, Title: strings.TrimSpace(it.Title),
		Author: it.Author, PublishedAt: plausibleDate(it.PublishedAt, time.Now()),
		Summary:         capMarkdown(summary, p.opts.MaxMarkdownBytes),
		ContentMarkdown: capMarkdown(ex.markdown, p.opts.MaxMarkdownBytes), ExtractionMethod: ex.method, WordCount: ex.stats.WordCount,
		ContentTextHash: hash, Revision: 1, ReadingTimeSeconds: ex.stats.ReadingTimeSeconds,
		InputTokens: ex.stats.InputTokens, OutputTokens: ex.stats.OutputTokens, QualityScore: ex.stats.Quality,
		InputTokensO200k: ex.stats.InputTokensO200k, OutputTokensO200k: ex.stats.OutputTokensO200k,
		Language: firstNonEmpty(ex.meta.Language, it.Language),
	}
	if it.GUID != "" {
		g := it.GUID
		a.ExternalID = &g
	}
	if src.SourceType == store.SourceWeb {
		// A web item is synthesised from the page's own metadata as
		// DESIGN.md §2 fixes it ("Untitled", no summary, no date when the
		// page names none); the body's headings are no substitute.
		return a
	}
	// Fill what the feed left out from the page's own metadata.
	if a.Title == "" || a.Title == "Untitled" {
		if ex.meta.Title != "" {
			a.Title = ex.meta.Title
		}
	}
	if a.Author == "" {
		a.Author = ex.meta.Author
	}
	if a.PublishedAt == nil {
		a.PublishedAt = plausibleDate(ex.meta.Published, time.Now())
	}
	if a.Summary == "" {
		a.Summary = capMarkdown(summaryMarkdown(ex.meta.Description, c.link, false), p.opts.MaxMarkdownBytes)
	}
	return a
}

// canonicalOf is the normalised canonical URL an article page declares,
// when it differs from the item's link. Web sources keep their source URL
// (DESIGN.md §2), and a canonical pointing at a site's home page is a
// template mistake, not an identity. Nor is a canonical URL on another
// site, or on an internal host: a page may not claim another site's
// identity (and with it that site's article in the workspace) or make the
// stored link point inside the network.
func canonicalOf(src store.FeedSource, c candidate, ex extraction) string {
	if src.SourceType == store.SourceWeb || ex.meta.CanonicalURL == "" {
		return ""
	}
	u, err := urlnorm.Normalize(ex.meta.CanonicalURL)
	if err != nil || u == c.url {
		return ""
	}
	parsed, err := url.Parse(u)
	if err != nil || parsed.Path == "/" || parsed.Path == "" {
		return ""
	}
	link, err := url.Parse(c.url)
	if err != nil || !sameSite(parsed.Hostname(), link.Hostname()) || internalHost(parsed.Hostname()) {
		return ""
	}
	return u
}

// dedupCanonical makes an article reached through two URLs one article: an
// article whose page names a canonical URL is stored under it, and dropped
// when the workspace already has it. One more batched query per poll, only
// when some page declared a different canonical URL.
func (p *Poller) dedupCanonical(ctx context.Context, src store.FeedSource, arts []store.NewArticle, canon []string) ([]store.NewArticle, int, error) {
	var urls []string
	for _, u := range canon {
		if u != "" {
			urls = append(urls, u)
		}
	}
	if len(urls) == 0 {
		return arts, 0, nil
	}
	known, err := p.store.KnownArticles(ctx, src.WorkspaceID, src.ID, urls, nil)
	if err != nil {
		return nil, 0, err
	}
	taken := make(map[string]bool, len(arts))
	for _, a := range arts {
		taken[a.Article.ExternalURL] = true
	}
	kept, dups := arts[:0], 0
	for i, a := range arts {
		if u := canon[i]; u != "" && a.Article.Revision <= 1 {
			if _, ok := known.ByURL[u]; ok || taken[u] {
				dups++
				continue
			}
			taken[u] = true
			a.Article.ExternalURL = u
		}
		kept = append(kept, a)
	}
	return kept, dups, nil
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
