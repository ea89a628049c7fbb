package pipeline

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"net/netip"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/sources/urls"
)

// ArticleLookup finds, in one query, which of a batch's URLs a workspace
// already stores and which GUIDs the source already yielded
// (store.Store.KnownArticles).
type ArticleLookup interface {
	KnownArticles(ctx context.Context, workspaceID, sourceID int64, urls, guids []string) (*model.Known, error)
}

// lookup asks, in one query for the whole batch, what is already stored of
// its items.
func (p *Pipeline) lookup(ctx context.Context, src model.FeedSource, items []item) (*model.Known, error) {
	urls := make([]string, 0, len(items))
	var guids []string
	for _, it := range items {
		urls = append(urls, it.url)
		if it.feed.GUID != "" {
			guids = append(guids, it.feed.GUID)
		}
	}
	return p.opts.Lookup.KnownArticles(ctx, src.WorkspaceID, src.ID, urls, guids)
}

// dropKnown drops the items already stored: by the source's GUID, or by
// URL anywhere in the workspace. A page of a web source that tracks
// changes is kept with its stored revision, for dropUnchanged to compare
// once its content is extracted. It returns the items kept and how many
// were dropped, and the feed digests of those whose outcome is settled
// (found among the source's own articles).
//
// The decision rests on what the lookup saw. Two polls saving one new URL
// at once (two sources of a workspace carrying one story) both find it
// unknown; the store's save is the backstop for that race: its insert
// skips an article whose URL (and revision) the workspace already holds,
// and a content item whose content hash it already promoted (ON CONFLICT
// DO NOTHING), and counts the item as a duplicate.
func dropKnown(src model.FeedSource, items []item, known *model.Known) (kept []item, dups int, settled []uint64) {
	tracked := src.TrackChanges && src.SourceType == model.SourceWeb
	kept = items[:0]
	for _, it := range items {
		if it.feed.GUID != "" && known.GUIDs[it.feed.GUID] {
			dups++
			settled = appendDigest(settled, it)
			continue
		}
		prev, stored := known.ByURL[it.url]
		if stored && !tracked {
			dups++
			// Only the source's own article settles the item: another
			// source's goes when that source is deleted, and the item is
			// then this source's to store.
			if prev.FeedSourceID != nil && *prev.FeedSourceID == src.ID {
				settled = appendDigest(settled, it)
			}
			continue
		}
		if stored {
			it.prev = &prev
		}
		kept = append(kept, it)
	}
	return kept, dups, settled
}

// appendDigest appends the feed digest of it, when it has one.
func appendDigest(digests []uint64, it item) []uint64 {
	if it.feed.Digest != 0 {
		digests = append(digests, it.feed.Digest)
	}
	return digests
}

// dropUnchanged keeps a tracked page as a new revision only when its main
// content changed, so timestamps and rotating tokens outside it do not
// make one. It returns the items kept and how many were unchanged.
func dropUnchanged(items []item) ([]item, int) {
	kept, dups := items[:0], 0
	for _, it := range items {
		if it.prev != nil {
			if it.prev.ContentTextHash == it.art.ContentTextHash {
				dups++
				continue
			}
			it.art.Revision = it.prev.Revision + 1
			id := it.prev.ID
			it.art.PreviousArticleID = &id
		}
		kept = append(kept, it)
	}
	return kept, dups
}

// dedupCanonical makes an article reached through two URLs one article: an
// article whose page names a canonical URL is stored under it, and dropped
// when the workspace already has it or an earlier item of the batch takes
// it. One more batched query per batch, only when some page declared a
// different canonical URL. It returns the items kept and how many were
// dropped.
func (p *Pipeline) dedupCanonical(ctx context.Context, src model.FeedSource, items []item) ([]item, int, error) {
	canon := make([]string, len(items))
	var urls []string
	for i, it := range items {
		if canon[i] = canonicalOf(src, it); canon[i] != "" {
			urls = append(urls, canon[i])
		}
	}
	if len(urls) == 0 {
		return items, 0, nil
	}
	known, err := p.opts.Lookup.KnownArticles(ctx, src.WorkspaceID, src.ID, urls, nil)
	if err != nil {
		return nil, 0, err
	}
	taken := make(map[string]bool, len(items))
	for _, it := range items {
		taken[it.art.ExternalURL] = true
	}
	kept, dups := items[:0], 0
	for i, it := range items {
		if u := canon[i]; u != "" && it.art.Revision <= 1 {
			if _, ok := known.ByURL[u]; ok || taken[u] {
				dups++
				continue
			}
			taken[u] = true
			it.art.ExternalURL = u
		}
		kept = append(kept, it)
	}
	return kept, dups, nil
}

// canonicalOf is the normalised canonical URL an article page declares,
// when it differs from the item's URL. A web source's item keeps its
// source URL, and a canonical pointing at a site's home page is a template
// mistake, not an identity. Nor is a canonical URL on another site, or on
// an internal host: a page may not claim another site's identity (and with
// it that site's article in the workspace) or make the stored link point
// inside the network.
func canonicalOf(src model.FeedSource, it item) string {
	if src.SourceType == model.SourceWeb || it.ex.meta.CanonicalURL == "" {
		return ""
	}
	u, err := urls.Normalize(it.ex.meta.CanonicalURL)
	if err != nil || u == it.url {
		return ""
	}
	parsed, err := url.Parse(u)
	if err != nil || parsed.Path == "/" || parsed.Path == "" {
		return ""
	}
	link, err := url.Parse(it.url)
	if err != nil || !sameSite(parsed.Hostname(), link.Hostname()) || internalHost(parsed.Hostname()) {
		return ""
	}
	return u
}

// sameSite reports whether two hosts belong to one registrable domain.
func sameSite(a, b string) bool {
	return fetch.RegistrableDomain(a) == fetch.RegistrableDomain(b)
}

// internalHost reports hosts that name a machine inside a network rather
// than a public site: loopback, private, link-local and other non-public
// addresses, and names such as localhost or *.internal.
func internalHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if ip, err := netip.ParseAddr(host); err == nil {
		return fetch.InternalAddress(ip) != ""
	}
	if !strings.Contains(host, ".") {
		return true // localhost, intranet names
	}
	for _, suffix := range []string{".localhost", ".local", ".internal", ".intranet", ".lan", ".home.arpa", ".localdomain"} {
		if strings.HasSuffix(host, suffix) {
			return true
		}
	}
	return false
}

// contentHash is the MD5 of an article's normalised text: lower-cased
// letters and digits, one space between words. Markup, punctuation and
// spacing differences between two feeds carrying one story do not change
// it, so the cross-source duplicate guard sees through them. An article
// with no text is hashed by its title and URL.
func contentHash(text, title, url string) string {
	if strings.TrimSpace(text) == "" {
		text = title + " " + url
	}
	// The normalised text is hashed as it is produced, a buffer at a
	// time, rather than built whole and copied again for the hash; ASCII,
	// most of it, is classified and lower-cased without the Unicode
	// tables.
	h := md5.New()
	var buf [512]byte
	out := buf[:0]
	wrote, space := false, false
	for i := 0; i < len(text); {
		c := text[i]
		var r rune
		if c < utf8.RuneSelf {
			i++
			if !asciiAlnum[c] {
				space = true
				continue
			}
			r = rune(c | asciiLowerBit[c])
		} else {
			var size int
			r, size = utf8.DecodeRuneInString(text[i:])
			i += size
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				space = true
				continue
			}
			r = unicode.ToLower(r)
		}
		if len(out) > len(buf)-utf8.UTFMax-1 {
			h.Write(out)
			out = out[:0]
		}
		if space && wrote {
			out = append(out, ' ')
		}
		space, wrote = false, true
		out = utf8.AppendRune(out, r)
	}
	if !wrote {
		return ""
	}
	h.Write(out)
	return hex.EncodeToString(h.Sum(nil))
}

// asciiAlnum marks the ASCII letters and digits, what unicode.IsLetter
// and unicode.IsDigit accept below utf8.RuneSelf; asciiLowerBit is what
// turns an upper-case ASCII letter into its lower case.
var asciiAlnum, asciiLowerBit = func() (alnum [utf8.RuneSelf]bool, lower [utf8.RuneSelf]byte) {
	for c := range utf8.RuneSelf {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			alnum[c] = true
		case c >= 'A' && c <= 'Z':
			alnum[c], lower[c] = true, 0x20
		}
	}
	return alnum, lower
}()
