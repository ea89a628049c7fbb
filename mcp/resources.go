package mcp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/feedpoller/feedpoller/model"
)

// itemTemplate is the URI of every content item.
const itemTemplate = "feedpoller://workspaces/{workspace}/items/{item}"

// resourcesPage is how many content items one resources/list answer holds.
const resourcesPage = 100

func itemURI(workspaceID, itemID int64) string {
	return fmt.Sprintf("feedpoller://workspaces/%d/items/%d", workspaceID, itemID)
}

// parseItemURI reads the workspace and item of a content item's URI.
func parseItemURI(uri string) (ws, item int64, ok bool) {
	rest, found := strings.CutPrefix(uri, "feedpoller://workspaces/")
	if !found {
		return 0, 0, false
	}
	wsText, itemText, found := strings.Cut(rest, "/items/")
	if !found {
		return 0, 0, false
	}
	ws, err1 := strconv.ParseInt(wsText, 10, 64)
	item, err2 := strconv.ParseInt(itemText, 10, 64)
	return ws, item, err1 == nil && err2 == nil && ws > 0 && item > 0
}

func (h *handlers) addResources(srv *sdk.Server) {
	srv.AddResourceTemplate(&sdk.ResourceTemplate{
		URITemplate: itemTemplate, Name: "content item", MIMEType: "text/markdown",
		Description: "A promoted article of a workspace as Markdown: its title, source, dates and text.",
	}, h.readItem)
	// The SDK lists only resources registered one by one; content items
	// come and go with every poll, so the list is answered from the
	// database, for the caller's workspaces only.
	srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method != "resources/list" {
				return next(ctx, method, req)
			}
			return h.listItems(ctx, req)
		}
	})
}

// listItems answers resources/list: the caller's content items, newest
// first, a page at a time (the cursor is the last id of the page before).
func (h *handlers) listItems(ctx context.Context, req sdk.Request) (*sdk.ListResourcesResult, error) {
	c, err := h.caller(ctx, req)
	if err != nil {
		return nil, h.callerError(ctx, err)
	}
	var cursor int64
	if p, ok := req.GetParams().(*sdk.ListResourcesParams); ok && p != nil && p.Cursor != "" {
		if cursor, err = strconv.ParseInt(p.Cursor, 10, 64); err != nil || cursor <= 0 {
			return nil, fmt.Errorf("invalid cursor %q: pass the nextCursor of the previous page", p.Cursor)
		}
	}
	ws := c.WorkspaceID
	if c.Admin {
		ws = 0
	}
	refs, err := h.store.ListItemRefs(ctx, ws, cursor, resourcesPage)
	if err != nil {
		h.log.ErrorContext(ctx, "mcp: list resources", "err", err)
		return nil, errors.New("listing content items failed; the server log has the details")
	}
	out := &sdk.ListResourcesResult{Resources: make([]*sdk.Resource, len(refs)), Cacheable: private}
	for i, r := range refs {
		out.Resources[i] = &sdk.Resource{URI: itemURI(r.WorkspaceID, r.ID), Name: r.Title, Title: r.Title,
			MIMEType: "text/markdown", Description: r.URL}
	}
	if len(refs) == resourcesPage {
		out.NextCursor = strconv.FormatInt(refs[len(refs)-1].ID, 10)
	}
	return out, nil
}

// readItem answers resources/read of one content item; another
// workspace's item is not found, as in the API.
func (h *handlers) readItem(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	ws, id, ok := parseItemURI(uri)
	if !ok {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	c, err := h.caller(ctx, req)
	if err != nil {
		return nil, h.callerError(ctx, err)
	}
	if !c.May(ws) {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	item, err := h.store.GetContentItem(ctx, ws, id)
	if errors.Is(err, model.ErrNotFound) {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	if err != nil {
		h.log.ErrorContext(ctx, "mcp: read resource", "uri", uri, "err", err)
		return nil, errors.New("reading the content item failed; the server log has the details")
	}
	return &sdk.ReadResourceResult{Cacheable: private,
		Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: itemMarkdown(item)}}}, nil
}

// private marks what a caller reads of its workspaces: only the caller's
// own client may cache it (the protocol's default is public).
var private = sdk.Cacheable{CacheScope: "private"}

// callerError is what a request whose caller cannot be told is answered:
// a revoked token says so, a database failure is logged.
func (h *handlers) callerError(ctx context.Context, err error) error {
	var ue userError
	if errors.As(err, &ue) || errors.Is(err, errNoCaller) {
		return err
	}
	h.log.ErrorContext(ctx, "mcp: check token", "err", err)
	return errors.New("the token could not be checked; the server log has the details")
}

// itemMarkdown is a content item as one Markdown document: a title, a
// few facts, the text.
func itemMarkdown(it *model.ContentItemView) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", it.Title)
	fmt.Fprintf(&b, "- URL: %s\n", it.URL)
	if it.SourceTitle != nil && *it.SourceTitle != "" {
		fmt.Fprintf(&b, "- Source: %s\n", *it.SourceTitle)
	} else if it.SourceURL != nil {
		fmt.Fprintf(&b, "- Source: %s\n", *it.SourceURL)
	}
	if it.PublishedAt != nil {
		fmt.Fprintf(&b, "- Published: %s\n", it.PublishedAt.UTC().Format(time.RFC3339))
	}
	fmt.Fprintf(&b, "- Relevance: %.2f\n- Article: %d (get_article)\n\n", it.RelevanceScore, it.FeedArticleID)
	b.WriteString(it.ContentMarkdown)
	return b.String()
}
