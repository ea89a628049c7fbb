package firecrawltest

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"time"
)

// ScenarioKind selects how the API answers a scrape of one target.
type ScenarioKind int

const (
	// ScenarioSuccess answers 200 with the Page.
	ScenarioSuccess ScenarioKind = iota
	// ScenarioTargetStatus answers 200, success true, with the target's own
	// failing status in metadata.statusCode (Page.StatusCode).
	ScenarioTargetStatus
	// ScenarioEmptyPage answers 500 SCRAPE_ALL_ENGINES_FAILED, as the API
	// does when a 2xx page has no content.
	ScenarioEmptyPage
	// ScenarioDNSFailure answers 500 SCRAPE_DNS_RESOLUTION_ERROR.
	ScenarioDNSFailure
	// ScenarioSiteError answers 500 SCRAPE_SITE_ERROR.
	ScenarioSiteError
	// ScenarioSSLError answers 500 SCRAPE_SSL_ERROR.
	ScenarioSSLError
	// ScenarioUnknownError answers 500 UNKNOWN_ERROR with an exception ID.
	ScenarioUnknownError
	// ScenarioSlowTarget takes Delay (API milliseconds, scaled) to load: past
	// timeout+waitFor it answers 408 SCRAPE_TIMEOUT after that budget,
	// otherwise it answers with the Page after Delay.
	ScenarioSlowTarget
	// ScenarioQueueTimeout spends the timeout budget in the concurrency
	// queue and answers 408.
	ScenarioQueueTimeout
)

// Scenario is what the fake does for one target.
type Scenario struct {
	Kind ScenarioKind
	Page Page
	// Delay is the target's load time for ScenarioSlowTarget, in API time
	// (scaled by Config.TimeScale).
	Delay time.Duration
}

// Page is a scraped page as the API reports it. The fake never parses
// HTML: the fixture states the metadata directly.
type Page struct {
	// HTML is returned for the "html" format (the API's cleaned,
	// main-content HTML without <head>).
	HTML string
	// RawHTML is returned for "rawHtml"; default HTML.
	RawHTML string
	// Markdown is returned for "markdown"; default a tag-stripped HTML.
	Markdown string
	// Links is returned for "links".
	Links []string
	// Metadata holds the extracted fields (title, description, ogTitle,
	// publishedTime, ...) and raw meta keys ("og:title", "Title", ...),
	// with any JSON types: tests may send wrong types on purpose. Engine
	// fields (sourceURL, url, statusCode, scrapeId, ...) are added and win
	// on collision, as in the API.
	Metadata map[string]any
	// MetadataOrder lists metadata keys to emit first, in this order; the
	// rest follow sorted. Order matters to decoders that match keys
	// case-insensitively with the last match winning (the SDK).
	MetadataOrder []string
	// FinalURL is metadata.url, where redirects ended; default the
	// normalised request URL.
	FinalURL string
	// StatusCode is the target's HTTP status; default 200.
	StatusCode int
	// Error is metadata.error, which only browser engines set.
	Error string
	// Warning is data.warning.
	Warning string
	// CacheState ("hit" or "miss") and CachedAt are reported when the
	// request sent maxAge > 0.
	CacheState string
	CachedAt   time.Time
}

// Success answers 200 with the page.
func Success(p Page) Scenario { return Scenario{Kind: ScenarioSuccess, Page: p} }

// TargetStatus answers 200 success with the target's status code (e.g.
// 404); p.Error may carry a browser engine's "Not Found".
func TargetStatus(code int, p Page) Scenario {
	p.StatusCode = code
	return Scenario{Kind: ScenarioTargetStatus, Page: p}
}

// EmptyPage answers 500 SCRAPE_ALL_ENGINES_FAILED.
func EmptyPage() Scenario { return Scenario{Kind: ScenarioEmptyPage} }

// DNSFailure answers 500 SCRAPE_DNS_RESOLUTION_ERROR.
func DNSFailure() Scenario { return Scenario{Kind: ScenarioDNSFailure} }

// SiteError answers 500 SCRAPE_SITE_ERROR.
func SiteError() Scenario { return Scenario{Kind: ScenarioSiteError} }

// SSLError answers 500 SCRAPE_SSL_ERROR.
func SSLError() Scenario { return Scenario{Kind: ScenarioSSLError} }

// UnknownError answers 500 UNKNOWN_ERROR.
func UnknownError() Scenario { return Scenario{Kind: ScenarioUnknownError} }

// SlowTarget loads in delay (API time) and then behaves as Success(p).
func SlowTarget(delay time.Duration, p Page) Scenario {
	return Scenario{Kind: ScenarioSlowTarget, Page: p, Delay: delay}
}

// QueueTimeout answers 408 after the timeout budget spent queueing.
func QueueTimeout() Scenario { return Scenario{Kind: ScenarioQueueTimeout} }

// The API's scrape error texts.
const (
	msgAllEnginesFailed = "All scraping engines failed! -- Double check the URL to make sure it's not broken. If the issue persists, contact us at help@firecrawl.com."
	msgDNS              = "DNS resolution failed for hostname: %s. Please check if the domain is valid and accessible."
	msgSite             = "Specified URL is failing to load in the browser. Error code: ERR_CONNECTION_REFUSED"
	msgSSL              = "An SSL error occurred while scraping the URL. If you're not inputting any sensitive data, try scraping with `skipTlsVerification: true`."
	msgUnknown          = "An unexpected error occurred. Please contact help@firecrawl.com for help. Your exception ID is %s"
	msgTimeout          = "Scrape timed out"
	msgQueueTimeout     = "Scrape timed out after waiting in the concurrency limit queue"
)

// runScenario is the controller step: find the target's scenario and
// answer it, waiting where the API would.
func (s *Server) runScenario(r *http.Request, req scrapeRequest) outcome {
	sc, ok := s.scenarioFor(req.sent, req.normalised)
	switch {
	case !ok && s.cfg.FetchTargets:
		return s.fetchTarget(r.Context(), req)
	case !ok:
		sc = EmptyPage()
	}
	budget := req.timeoutMS + req.waitForMS
	switch sc.Kind {
	case ScenarioEmptyPage:
		return failure(http.StatusInternalServerError, "SCRAPE_ALL_ENGINES_FAILED", msgAllEnginesFailed)
	case ScenarioDNSFailure:
		return failure(http.StatusInternalServerError, "SCRAPE_DNS_RESOLUTION_ERROR", fmt.Sprintf(msgDNS, req.normalised.Hostname()))
	case ScenarioSiteError:
		return failure(http.StatusInternalServerError, "SCRAPE_SITE_ERROR", msgSite)
	case ScenarioSSLError:
		return failure(http.StatusInternalServerError, "SCRAPE_SSL_ERROR", msgSSL)
	case ScenarioUnknownError:
		return failure(http.StatusInternalServerError, "UNKNOWN_ERROR", fmt.Sprintf(msgUnknown, newUUID()))
	case ScenarioQueueTimeout:
		s.sleep(r.Context(), s.scaled(budget))
		return failure(http.StatusRequestTimeout, "SCRAPE_TIMEOUT", msgQueueTimeout)
	case ScenarioSlowTarget:
		delayMS := int(sc.Delay / time.Millisecond)
		if delayMS > budget {
			s.sleep(r.Context(), s.scaled(budget))
			return failure(http.StatusRequestTimeout, "SCRAPE_TIMEOUT", msgTimeout)
		}
		s.sleep(r.Context(), s.scaled(delayMS))
	}
	data := successData(req, sc.Page)
	return outcome{
		status:  http.StatusOK,
		body:    object{{"success", true}, {"data", data}},
		success: data,
	}
}

// successData builds data: the requested formats, then metadata.
func successData(req scrapeRequest, p Page) object {
	var data object
	if req.wants("markdown") {
		md := p.Markdown
		if md == "" {
			md = roughMarkdown(p.HTML)
		}
		data = append(data, field{"markdown", md})
	}
	if req.wants("html") {
		data = append(data, field{"html", p.HTML})
	}
	if req.wants("rawHtml") {
		raw := p.RawHTML
		if raw == "" {
			raw = p.HTML
		}
		data = append(data, field{"rawHtml", raw})
	}
	if req.wants("links") {
		links := p.Links
		if links == nil {
			links = []string{}
		}
		data = append(data, field{"links", links})
	}
	if p.Warning != "" {
		data = append(data, field{"warning", p.Warning})
	}
	return append(data, field{"metadata", metadataObject(req, p)})
}

// metadataObject is {...extracted, ...engineFields}: fixture keys in the
// requested order, engine fields overriding in place or appended.
func metadataObject(req scrapeRequest, p Page) object {
	var meta object
	seen := map[string]bool{}
	for _, k := range p.MetadataOrder {
		if v, ok := p.Metadata[k]; ok && !seen[k] {
			meta = append(meta, field{k, v})
			seen[k] = true
		}
	}
	rest := make([]string, 0, len(p.Metadata))
	for k := range p.Metadata {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		meta = append(meta, field{k, p.Metadata[k]})
	}
	final := p.FinalURL
	if final == "" {
		final = req.normalised.String()
	}
	status := p.StatusCode
	if status == 0 {
		status = http.StatusOK
	}
	engine := object{
		{"sourceURL", req.sent},
		{"url", final},
		{"statusCode", status},
		{"scrapeId", newUUID()},
		{"contentType", "text/html; charset=utf-8"},
		{"proxyUsed", "basic"},
		{"creditsUsed", 1},
	}
	if p.Error != "" {
		engine = append(engine, field{"error", p.Error})
	}
	if req.maxAgeMS > 0 && p.CacheState != "" {
		engine = append(engine, field{"cacheState", p.CacheState})
		if !p.CachedAt.IsZero() {
			engine = append(engine, field{"cachedAt", p.CachedAt.UTC().Format("2006-01-02T15:04:05.000Z")})
		}
	}
	for _, f := range engine {
		meta = meta.set(f.key, f.val)
	}
	return meta
}

var (
	tagPattern   = regexp.MustCompile(`(?s)<[^>]*>`)
	blankPattern = regexp.MustCompile(`\n{3,}`)
)

// roughMarkdown is a plain-text rendering, enough for a fake.
func roughMarkdown(h string) string {
	text := tagPattern.ReplaceAllString(h, "\n")
	return strings.TrimSpace(blankPattern.ReplaceAllString(text, "\n\n"))
}

// newUUID returns a random version-4 UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
