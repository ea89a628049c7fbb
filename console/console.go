package console

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"time"

	"github.com/feedpoller/feedpoller/auth"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
)

// Prefix is where the console is served.
const Prefix = "/ui"

// Store is what the console reads and writes itself: sessions, the token
// check, and the reads the service does not offer (poll history,
// activity, articles, search, content items). *store.Store satisfies it.
type Store interface {
	auth.TokenLookup
	CreateConsoleSession(ctx context.Context, idHash, sealed string, expires time.Time) error
	ConsoleSession(ctx context.Context, idHash string) (*model.ConsoleSession, error)
	SetConsoleFlash(ctx context.Context, idHash, flash string) error
	DeleteConsoleSession(ctx context.Context, idHash string) error

	LatestPollRuns(ctx context.Context, workspaceID int64) (map[int64]model.PollRun, error)
	ListPollRuns(ctx context.Context, sourceID int64, limit int) ([]model.PollRun, error)
	PollActivity(ctx context.Context, workspaceID int64, since, until time.Time, bucket time.Duration) ([]model.ActivityCount, error)
	ArticleActivity(ctx context.Context, workspaceID int64, since, until time.Time, bucket time.Duration) ([]model.ActivityCount, error)
	GetArticle(ctx context.Context, workspaceID, id int64) (*model.FeedArticle, error)
	Search(ctx context.Context, workspaceID int64, f model.SearchFilter) ([]model.SearchHit, error)
	ListContentItems(ctx context.Context, workspaceID int64, f model.ListFilter) ([]model.ContentItemView, error)
}

// Options configures a Console.
type Options struct {
	// Store holds the sessions and the reads above; required.
	Store Store
	// Service does everything else, with the API's rules; required.
	Service *service.Service
	// AdminToken is FEEDPOLLER_ADMIN_TOKEN ("" when not set), checked as
	// the API checks it (auth.Authenticate).
	AdminToken string
	// SessionTTL is how long a sign-in lasts (0: DefaultSessionTTL).
	SessionTTL time.Duration
	// Log receives failures; nil uses slog.Default().
	Log *slog.Logger
}

// DefaultSessionTTL is how long a sign-in lasts unless configured.
const DefaultSessionTTL = 12 * time.Hour

// Console is the web console of one daemon.
type Console struct {
	store Store
	svc   *service.Service
	admin string
	// adminHash is the configured admin token's digest, as auth compares it.
	adminHash []byte
	ttl       time.Duration
	log       *slog.Logger
	pages     map[string]*template.Template
	handler   http.Handler
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// New builds a Console.
func New(opts Options) (*Console, error) {
	if opts.Store == nil || opts.Service == nil {
		return nil, errors.New("console: a store and a service are required")
	}
	c := &Console{store: opts.Store, svc: opts.Service, admin: opts.AdminToken, adminHash: auth.AdminDigest(opts.AdminToken),
		ttl: opts.SessionTTL, log: opts.Log}
	if c.ttl <= 0 {
		c.ttl = DefaultSessionTTL
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	c.pages = pages
	c.handler = secureHeaders(c.routes())
	return c, nil
}

// Handler serves everything under Prefix.
func (c *Console) Handler() http.Handler { return c.handler }

func (c *Console) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+Prefix+"/static/{file}", serveStatic)
	mux.HandleFunc("GET "+Prefix+"/signin", c.signInPage)
	mux.HandleFunc("POST "+Prefix+"/signin", c.signIn)

	// page registers a handler that needs a signed-in caller; POST ones
	// also need the form's CSRF token and a token that may write.
	page := func(pattern string, h handler) { mux.Handle(pattern, c.authed(h)) }
	page("POST "+Prefix+"/signout", c.signOut)
	page("GET "+Prefix+"/{$}", c.home)
	page("POST "+Prefix+"/workspaces", c.createWorkspace)

	w := "/w/{ws}"
	page("GET "+Prefix+w+"/{$}", c.workspaceHome)
	page("GET "+Prefix+w+"/sources", c.sourcesPage)
	page("GET "+Prefix+w+"/sources/new", c.newSourcePage)
	page("POST "+Prefix+w+"/sources", c.addSource)
	page("GET "+Prefix+w+"/sources/{id}", c.sourcePage)
	page("POST "+Prefix+w+"/sources/{id}/pause", c.setActive(false))
	page("POST "+Prefix+w+"/sources/{id}/resume", c.setActive(true))
	page("POST "+Prefix+w+"/sources/{id}/poll", c.pollSource)
	page("GET "+Prefix+w+"/sources/{id}/delete", c.deleteSourcePage)
	page("POST "+Prefix+w+"/sources/{id}/delete", c.deleteSource)
	page("GET "+Prefix+w+"/opml", c.opmlPage)
	page("POST "+Prefix+w+"/opml", c.importOPML)
	page("GET "+Prefix+w+"/sources.opml", c.exportOPML)

	page("GET "+Prefix+w+"/activity", c.activityPage)

	page("GET "+Prefix+w+"/digest", c.digestPage)
	page("GET "+Prefix+w+"/articles/{id}", c.articlePage)
	page("GET "+Prefix+w+"/search", c.searchPage)
	page("GET "+Prefix+w+"/items", c.itemsPage)

	page("GET "+Prefix+w+"/webhooks", c.webhooksPage)
	page("POST "+Prefix+w+"/webhooks", c.addWebhook)
	page("POST "+Prefix+w+"/webhooks/{id}/disable", c.setWebhookActive(false))
	page("POST "+Prefix+w+"/webhooks/{id}/enable", c.setWebhookActive(true))
	page("GET "+Prefix+w+"/webhooks/{id}", c.deliveriesPage)
	page("GET "+Prefix+w+"/tokens", c.tokensPage)
	page("POST "+Prefix+w+"/tokens", c.createToken)
	page("POST "+Prefix+w+"/tokens/{id}/revoke", c.revokeToken)
	page("GET "+Prefix+"/tokens", c.tokensPage)
	page("POST "+Prefix+"/tokens", c.createToken)
	page("POST "+Prefix+"/tokens/{id}/revoke", c.revokeToken)

	mux.HandleFunc(Prefix+"/", c.notFound)
	return mux
}
