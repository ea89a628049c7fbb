package console

import (
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/feedpoller/feedpoller/analysis/digest"
	"github.com/feedpoller/feedpoller/analysis/rank"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
)

// digestWindows are the windows the digest page offers.
var digestWindows = []struct{ Value, Label string }{
	{"24h", "last 24 hours"}, {"3d", "last 3 days"}, {"7d", "last 7 days"}, {"30d", "last 30 days"},
}

type digestData struct {
	Since, Until string
	Windows      []struct{ Value, Label string }
	Problem      string
	Fields       map[string]string
	D            *digest.Digest
}

// Label words a confidence as the digests do.
func (digestData) Label(c float64) string { return rank.ConfidenceLabel(c) }

// digestPage shows the digest of a window: its stories, most important
// first, each citing its articles, which link to the article page.
func (c *Console) digestPage(w http.ResponseWriter, r *http.Request, rq *request) error {
	q := r.URL.Query()
	d := digestData{Since: q.Get("since"), Until: q.Get("until"), Windows: digestWindows}
	if d.Since == "" {
		d.Since = "24h"
	}
	status := http.StatusOK
	got, err := c.svc.Digest(r.Context(), rq.ws.ID, service.DigestRequest{Since: d.Since, Until: d.Until})
	if se := asServiceError(err); se != nil && errors.Is(se, service.ErrInvalid) {
		status, d.Problem, d.Fields = http.StatusBadRequest, se.Message, se.Fields
	} else if err != nil {
		return err
	} else {
		d.D = got.Built
	}
	c.renderView(w, r, status, "digest", view{Title: "Digest", Req: rq, Section: "digest", Data: d})
	return nil
}

type articleData struct {
	A      *model.FeedArticle
	Source *model.FeedSource
	Body   any
}

// articlePage shows one stored article, its Markdown rendered safely.
func (c *Console) articlePage(w http.ResponseWriter, r *http.Request, rq *request) error {
	id, ok := pathID(r, "id")
	if !ok {
		return pageErr(http.StatusNotFound, "Article not found.")
	}
	a, err := c.store.GetArticle(r.Context(), rq.ws.ID, id)
	if errors.Is(err, model.ErrNotFound) {
		return pageErr(http.StatusNotFound, "Article not found.")
	}
	if err != nil {
		return err
	}
	d := articleData{A: a, Body: markdown(a.ContentMarkdown, a.ExternalURL)}
	if a.FeedSourceID != nil {
		if src, err := c.svc.GetSource(r.Context(), rq.ws.ID, *a.FeedSourceID); err == nil {
			d.Source = src
		}
	}
	title := a.Title
	if strings.TrimSpace(title) == "" {
		title = a.ExternalURL
	}
	c.renderView(w, r, http.StatusOK, "article", view{Title: title, Req: rq, Section: "read", Data: d})
	return nil
}

// snippetPart is a piece of a search snippet, marked when it matched.
type snippetPart struct {
	Text string
	Mark bool
}

var (
	// mdLink is a Markdown link or image in a snippet, whose text is kept;
	// mdCutLink one the snippet cut after its text.
	mdLink    = regexp.MustCompile(`!?\[([^\[\]]*)\]\([^)]*\)`)
	mdCutLink = regexp.MustCompile(`\[?([^\[\]]*)\]\([^)]*$`)
	mdHeading = regexp.MustCompile(`(^|\s)#{1,6} `)
)

// snippetParts splits a snippet at the store's ** markers, reading its
// Markdown links and headings as their text.
func snippetParts(s string) []snippetPart {
	s = mdLink.ReplaceAllString(s, "$1")
	s = mdCutLink.ReplaceAllString(s, "$1")
	s = mdHeading.ReplaceAllString(s, "$1")
	var out []snippetPart
	for i, p := range strings.Split(s, "**") {
		if p != "" {
			out = append(out, snippetPart{Text: p, Mark: i%2 == 1})
		}
	}
	return out
}

type searchHit struct {
	model.SearchHit
	Parts []snippetPart
}

type searchData struct {
	Q        string
	Problem  string
	Hits     []searchHit
	Searched bool
}

// searchPage searches the workspace's articles with the API's query
// syntax, best match first.
func (c *Console) searchPage(w http.ResponseWriter, r *http.Request, rq *request) error {
	d := searchData{Q: strings.TrimSpace(r.URL.Query().Get("q"))}
	status := http.StatusOK
	if msg := service.CheckQuery(d.Q); msg != "" {
		status, d.Problem = http.StatusBadRequest, "The query "+msg+"."
	} else if d.Q != "" {
		hits, err := c.store.Search(r.Context(), rq.ws.ID, model.SearchFilter{Query: d.Q, Limit: model.MaxSearchResults})
		if err != nil {
			return err
		}
		d.Searched = true
		for _, h := range hits {
			d.Hits = append(d.Hits, searchHit{SearchHit: h, Parts: snippetParts(h.Snippet)})
		}
	}
	c.renderView(w, r, status, "search", view{Title: "Search", Req: rq, Section: "search", Data: d})
	return nil
}

type itemsData struct {
	Q, MinScore string
	Problem     string
	Items       []model.ContentItemView
	Next        string
}

// itemsPageSize is how many content items a page lists.
const itemsPageSize = 50

// itemsPage lists the content items, newest first, with their scores and
// matched terms.
func (c *Console) itemsPage(w http.ResponseWriter, r *http.Request, rq *request) error {
	q := r.URL.Query()
	d := itemsData{Q: strings.TrimSpace(q.Get("q")), MinScore: strings.TrimSpace(q.Get("min_score"))}
	f := model.ListFilter{Limit: itemsPageSize, Query: d.Q}
	status := http.StatusOK
	if msg := service.CheckQuery(d.Q); msg != "" {
		status, d.Problem = http.StatusBadRequest, "The search "+msg+"."
	}
	if d.MinScore != "" {
		x, err := strconv.ParseFloat(d.MinScore, 64)
		if err != nil || x < 0 || x > 1 {
			status, d.Problem = http.StatusBadRequest, "The least score must be a number from 0 to 1."
		}
		f.MinScore = &x
	}
	if v := q.Get("cursor"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			status, d.Problem = http.StatusBadRequest, "That page does not exist: start from the first."
		}
		f.Cursor = n
	}
	if status == http.StatusOK {
		items, err := c.store.ListContentItems(r.Context(), rq.ws.ID, f)
		if err != nil {
			return err
		}
		d.Items = items
		if len(items) == itemsPageSize {
			next := r.URL.Query()
			next.Set("cursor", strconv.FormatInt(items[len(items)-1].ID, 10))
			d.Next = "?" + next.Encode()
		}
	}
	c.renderView(w, r, status, "items", view{Title: "Content items", Req: rq, Section: "items", Data: d})
	return nil
}
