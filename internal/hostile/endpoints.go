package hostile

import "net/http"

// Outcome is how a correct client classifies what an endpoint did to it.
// The names match sources.ErrorKind's String values, plus OutcomeOK for a
// poll that succeeds.
type Outcome string

// The outcomes a chaos test can expect.
const (
	OutcomeOK          Outcome = "ok"
	OutcomeTransient   Outcome = "transient"
	OutcomePermanent   Outcome = "permanent"
	OutcomeGone        Outcome = "gone"
	OutcomeRateLimited Outcome = "rate_limited"
)

// Endpoint documents one hostile endpoint.
type Endpoint struct {
	// Name is the path without its leading slash; Hits takes it.
	Name string
	// URL is absolute, on this server.
	URL string
	// SourceType is the kind of source that should point at it: "rss" for
	// feed-shaped abuse, "web" for page-shaped abuse.
	SourceType string
	// Does says what the server does.
	Does string
	// Expect says what a correct client ends with, and what it must not do.
	Expect string
	// Outcomes are the acceptable classifications, the usual one first.
	Outcomes []Outcome
}

// entry ties an Endpoint to its route and handler.
type entry struct {
	Endpoint
	route   string
	handler func(*Server) http.HandlerFunc
}

// catalogue is the read-only list behind Server.Endpoints and the routes.
var catalogue = []entry{
	{Endpoint{Name: "hang", SourceType: "rss",
		Does:     "accepts the request and never answers (no status line), until the client leaves or the server closes",
		Expect:   "a timeout error within the client's total timeout; the worker is freed; retried as transient",
		Outcomes: []Outcome{OutcomeTransient}},
		"/hang", func(s *Server) http.HandlerFunc { return s.serveHang }},
	{Endpoint{Name: "trickle", SourceType: "rss",
		Does:     "answers 200 at once, then sends a valid feed one byte per second",
		Expect:   "the total timeout (not a per-read timeout) ends the request with a timeout error; transient",
		Outcomes: []Outcome{OutcomeTransient}},
		"/trickle", func(s *Server) http.HandlerFunc { return s.serveTrickle }},
	{Endpoint{Name: "reset", SourceType: "rss",
		Does:     "reads the request, then closes the TCP connection with RST and no answer",
		Expect:   "a connection-reset error, retried as transient; no crash",
		Outcomes: []Outcome{OutcomeTransient}},
		"/reset", func(s *Server) http.HandlerFunc { return s.serveReset }},
	{Endpoint{Name: "reset-midbody", SourceType: "rss",
		Does:     "answers 200 with a Content-Length, sends half of a feed, then resets the connection",
		Expect:   "an unexpected-EOF/reset error, transient; nothing from the half feed is stored",
		Outcomes: []Outcome{OutcomeTransient}},
		"/reset-midbody", func(s *Server) http.HandlerFunc { return s.serveResetMidBody }},
	{Endpoint{Name: "huge", SourceType: "rss",
		Does:     "streams a 100 MB feed-shaped body (chunked, no Content-Length), generated as it goes",
		Expect:   "the body cap stops the read with a clear 'body exceeds N bytes' error; memory stays at the cap",
		Outcomes: []Outcome{OutcomePermanent}},
		"/huge", func(s *Server) http.HandlerFunc { return s.serveHuge }},
	{Endpoint{Name: "gzipbomb", SourceType: "rss",
		Does:     "sends Content-Encoding: gzip whatever was asked: about 2 MB compressed that inflates to 2 GiB",
		Expect:   "the cap applies after decompression: a 'body exceeds N bytes' error, memory stays at the cap",
		Outcomes: []Outcome{OutcomePermanent}},
		"/gzipbomb", func(s *Server) http.HandlerFunc { return s.serveGzipBomb }},
	{Endpoint{Name: "redirect-loop", SourceType: "rss",
		Does:     "302 /redirect-loop → /redirect-loop/b → /redirect-loop → …",
		Expect:   "a redirect-loop (or too-many-redirects) error after at most 10 hops; permanent",
		Outcomes: []Outcome{OutcomePermanent}},
		"/redirect-loop", func(s *Server) http.HandlerFunc { return s.serveRedirectLoop }},
	{Endpoint{Name: "redirect-metadata", SourceType: "rss",
		Does:     "302 to http://169.254.169.254/latest/meta-data/ (the cloud metadata service)",
		Expect:   "refused before dialling with an error naming the blocked address; permanent; nothing dials 169.254.169.254",
		Outcomes: []Outcome{OutcomePermanent}},
		"/redirect-metadata", func(s *Server) http.HandlerFunc { return redirectTo(metadataURL) }},
	{Endpoint{Name: "redirect-metadata-mapped", SourceType: "rss",
		Does:     "302 to the metadata address written as IPv4-mapped IPv6, http://[::ffff:169.254.169.254]/latest/meta-data/",
		Expect:   "refused before dialling, as redirect-metadata; permanent",
		Outcomes: []Outcome{OutcomePermanent}},
		"/redirect-metadata-mapped", func(s *Server) http.HandlerFunc { return redirectTo(mappedMetadataURL) }},
	{Endpoint{Name: "redirect-private", SourceType: "rss",
		Does:     "302 to http://10.0.0.1/admin (RFC 1918)",
		Expect:   "refused before dialling; permanent",
		Outcomes: []Outcome{OutcomePermanent}},
		"/redirect-private", func(s *Server) http.HandlerFunc { return redirectTo(privateURL) }},
	{Endpoint{Name: "redirect-localhost", SourceType: "rss",
		Does:     "302 to http://localhost:PORT/secret on this same server",
		Expect:   "refused before dialling (localhost is loopback); permanent; Forbidden() stays 0",
		Outcomes: []Outcome{OutcomePermanent}},
		"/redirect-localhost", func(s *Server) http.HandlerFunc { return s.serveRedirectLocalhost }},
	{Endpoint{Name: "ratelimit", SourceType: "rss",
		Does:     "429 Too Many Requests with Retry-After: 120",
		Expect:   "a deferral, not a failure: next poll no sooner than 120 s later; no retry within the poll",
		Outcomes: []Outcome{OutcomeRateLimited}},
		"/ratelimit", func(s *Server) http.HandlerFunc { return s.serveRateLimit }},
	{Endpoint{Name: "flap", SourceType: "rss",
		Does:     "alternates 500 and a valid feed, starting with 500 (one counter for all clients)",
		Expect:   "the 500 is retried within the poll and the poll succeeds with the feed's items",
		Outcomes: []Outcome{OutcomeOK, OutcomeTransient}},
		"/flap", func(s *Server) http.HandlerFunc { return s.serveFlap }},
	{Endpoint{Name: "invalid-xml", SourceType: "rss",
		Does:     "200 application/rss+xml whose body is malformed XML",
		Expect:   "a parse error naming the feed; permanent; no retry; no items",
		Outcomes: []Outcome{OutcomePermanent}},
		"/invalid-xml", func(s *Server) http.HandlerFunc {
			return s.serveStatic("application/rss+xml; charset=utf-8", invalidXML)
		}},
	{Endpoint{Name: "billion-laughs", SourceType: "rss",
		Does:     "an RSS document whose DOCTYPE defines nested entities that would expand to 10^9 'lol's, referenced from the item",
		Expect:   "no expansion and flat memory: either the feed parses with the entity left unexpanded, or a parse error (permanent)",
		Outcomes: []Outcome{OutcomeOK, OutcomePermanent}},
		"/billion-laughs", func(s *Server) http.HandlerFunc {
			return s.serveStatic("application/rss+xml; charset=utf-8", billionLaughs)
		}},
	{Endpoint{Name: "many-items", SourceType: "rss",
		Does:     "a valid RSS feed with 100 000 items (about 8 MB, streamed), linking to small pages at /a/{k}",
		Expect:   "at most the per-feed item cap is taken (or the body cap stops it); the poll ends in bounded time and memory",
		Outcomes: []Outcome{OutcomeOK, OutcomePermanent}},
		"/many-items", func(s *Server) http.HandlerFunc { return s.serveManyItems }},
	{Endpoint{Name: "html-as-feed", SourceType: "rss",
		Does:     "200 text/html: an ordinary web page where a feed was expected",
		Expect:   "a 'not a feed' error; permanent",
		Outcomes: []Outcome{OutcomePermanent}},
		"/html-as-feed", func(s *Server) http.HandlerFunc { return s.serveStatic("text/html; charset=utf-8", htmlPage) }},
	{Endpoint{Name: "pdf", SourceType: "web",
		Does:     "200 application/pdf with a small PDF body, where a web page was expected",
		Expect:   "'content type application/pdf is not HTML'; permanent",
		Outcomes: []Outcome{OutcomePermanent}},
		"/pdf", func(s *Server) http.HandlerFunc { return s.serveStatic("application/pdf", pdfDoc) }},
	{Endpoint{Name: "wrong-charset", SourceType: "rss",
		Does:     `a feed declaring encoding="ISO-8859-1" whose bytes are UTF-8 ("Café", "naïve", "€")`,
		Expect:   "the feed parses; stored text is valid UTF-8 (mojibake such as 'CafÃ©' is acceptable, a crash or invalid UTF-8 in the database is not)",
		Outcomes: []Outcome{OutcomeOK}},
		"/wrong-charset", func(s *Server) http.HandlerFunc {
			return s.serveStatic("application/rss+xml", wrongCharsetLatin1Declared)
		}},
	{Endpoint{Name: "wrong-charset-reverse", SourceType: "rss",
		Does:     `a feed declaring encoding="UTF-8" whose bytes are ISO-8859-1 (invalid UTF-8)`,
		Expect:   "either a clear parse error (permanent) or text repaired to valid UTF-8; never invalid UTF-8 written to the database",
		Outcomes: []Outcome{OutcomePermanent, OutcomeOK}},
		"/wrong-charset-reverse", func(s *Server) http.HandlerFunc {
			return s.serveStatic("application/rss+xml", wrongCharsetUTF8Declared)
		}},
	{Endpoint{Name: "markup", SourceType: "rss",
		Does:     "a valid feed whose channel title, item titles and summaries hold script tags, event handlers and javascript: links, and whose content has an iframe, a tracking image and a relative link",
		Expect:   "the poll succeeds; whatever shows the text (API, console, digest) shows it as text: no tag, handler or javascript: link of the feed ever reaches a page as markup",
		Outcomes: []Outcome{OutcomeOK}},
		"/markup", func(s *Server) http.HandlerFunc {
			return s.serveStatic("application/rss+xml; charset=utf-8", markupFeed)
		}},
	{Endpoint{Name: "gone", SourceType: "rss",
		Does:     "410 Gone",
		Expect:   "the source is deactivated at once with reason 'gone'; no retry",
		Outcomes: []Outcome{OutcomeGone}},
		"/gone", func(s *Server) http.HandlerFunc { return serveStatus(http.StatusGone) }},
	{Endpoint{Name: "notfound", SourceType: "rss",
		Does:     "404 Not Found",
		Expect:   "permanent failure 'HTTP 404'; no retry within the poll",
		Outcomes: []Outcome{OutcomePermanent}},
		"/notfound", func(s *Server) http.HandlerFunc { return serveStatus(http.StatusNotFound) }},
}

// Redirect targets that name addresses nothing may dial.
const (
	metadataURL       = "http://169.254.169.254/latest/meta-data/"
	mappedMetadataURL = "http://[::ffff:169.254.169.254]/latest/meta-data/"
	privateURL        = "http://10.0.0.1/admin"
)
