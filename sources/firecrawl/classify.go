package firecrawl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/sources"
)

// rateWindow is the length of Firecrawl's fixed rate-limit window, the
// pause assumed when a 429 says nothing about when to come back.
const rateWindow = time.Minute

// retryAfterInMessage finds the delay Firecrawl writes into its 429 text.
var retryAfterInMessage = regexp.MustCompile(`retry after (\d+)s`)

// apiError is Firecrawl's error body.
type apiError struct {
	Code    string `json:"code"`
	Error   string `json:"error"`
	Details []struct {
		Message string `json:"message"`
	} `json:"details"`
}

// interpret turns what the transport saw into a Page or a classified
// failure. The SDK's own error serves only as the cause of transport
// failures: its strings lose the status and garble '%'.
func (c *Client) interpret(ctx context.Context, seen *exchange, sdkErr error) (*Page, *sources.FetchError) {
	switch {
	case seen.tooLarge:
		return nil, &sources.FetchError{Kind: sources.KindPermanent,
			Msg: fmt.Sprintf("Firecrawl response exceeds the %d-byte limit", c.opts.MaxBodyBytes)}
	case !seen.responded || seen.cutOff:
		return nil, c.transportFailure(ctx, seen, sdkErr)
	case seen.status == http.StatusOK:
		return decodeSuccess(seen.body)
	}
	return nil, c.statusFailure(seen)
}

func (c *Client) transportFailure(ctx context.Context, seen *exchange, err error) *sources.FetchError {
	if err == nil {
		err = errors.New("no response")
	}
	what := "Firecrawl request failed"
	if seen.cutOff {
		what = "Firecrawl response cut off"
	}
	if cerr := ctx.Err(); cerr != nil {
		// The caller gave up (deadline or shutdown): say so, not what the
		// transport made of it.
		return &sources.FetchError{Kind: sources.KindTransient, Msg: what, Err: cerr}
	}
	var nerr net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &nerr) && nerr.Timeout()) {
		return &sources.FetchError{Kind: sources.KindTransient,
			Msg: fmt.Sprintf("Firecrawl did not answer within %s", c.opts.Timeout+c.slack), Err: noRetry{err}}
	}
	return &sources.FetchError{Kind: sources.KindTransient, Msg: what, Err: err}
}

// successBody is a 200 answer. Only the metadata keys come from the
// page, so only they need exact matching (a map): Go matches struct keys
// case-insensitively, and <meta name="Title"> must not replace "title".
type successBody struct {
	Success any          `json:"success"`
	Error   string       `json:"error"`
	Code    string       `json:"code"`
	Data    *successData `json:"data"`
}

type successData struct {
	HTML     *string        `json:"html"`
	Metadata map[string]any `json:"metadata"`
}

// decodeSuccess decodes a 200 body in one pass: a page of megabytes is
// copied once, into Page.HTML.
func decodeSuccess(body []byte) (*Page, *sources.FetchError) {
	var env successBody
	err := json.Unmarshal(body, &env)
	var typeErr *json.UnmarshalTypeError
	switch {
	case err != nil && (!errors.As(err, &typeErr) || typeErr.Field == ""):
		// Not JSON, or not an object.
		return nil, &sources.FetchError{Kind: sources.KindTransient, Msg: "Firecrawl sent malformed JSON", Err: err}
	case typeErr != nil && typeErr.Field == "data.html":
		return nil, &sources.FetchError{Kind: sources.KindTransient, Msg: "Firecrawl sent html that is not a string", Err: err}
	case typeErr != nil && strings.HasPrefix(typeErr.Field, "data.metadata"):
		// A wrongly typed metadata object is dropped, not fatal: the
		// page is still the page.
		env.Data.Metadata = nil
	case typeErr != nil:
		// "data" itself, or the error fields, are not what they should be.
		env.Data = nil
	}
	if env.Success != true {
		return nil, &sources.FetchError{Kind: sources.KindTransient, Msg: "Firecrawl reported failure",
			Err: &APIError{Status: http.StatusOK, Code: env.Code, Message: orDefault(env.Error, "no details")}}
	}
	if env.Data == nil {
		return nil, &sources.FetchError{Kind: sources.KindTransient, Msg: "Firecrawl answered success without data"}
	}
	page := &Page{Metadata: env.Data.Metadata}
	if page.Metadata == nil {
		page.Metadata = map[string]any{}
	}
	if env.Data.HTML != nil {
		page.HTML = *env.Data.HTML
	}
	page.StatusCode = metaInt(page.Metadata["statusCode"])
	page.FinalURL, _ = page.Metadata["url"].(string)
	return page, nil
}

// statusFailure classifies a non-200 answer of Firecrawl itself. The
// FetchError's Status stays 0, which is how the source's recorded HTTP
// status tells a failure of Firecrawl from a failure of the page; the
// APIError it wraps has Firecrawl's status and code.
func (c *Client) statusFailure(seen *exchange) *sources.FetchError {
	code := seen.status
	detail, apiCode := errorDetail(seen.body)
	ae := &APIError{Status: code, Code: apiCode, Message: detail}
	fe := &sources.FetchError{Err: ae}
	switch {
	case code == http.StatusUnauthorized:
		fe.Kind, fe.Msg = sources.KindPaused, "Firecrawl rejected the API key (401)"
	case code == http.StatusPaymentRequired:
		fe.Kind, fe.Msg = sources.KindPaused, "Firecrawl credits exhausted (402)"
	case code == http.StatusTooManyRequests:
		fe.Kind, fe.Msg = sources.KindRateLimited, "Firecrawl rate limit (429)"
		fe.RetryAfter = c.retryAfter(seen, detail)
	case code == http.StatusRequestTimeout:
		t := fmtSeconds(c.opts.Timeout)
		fe.Kind = sources.KindTransient
		fe.Msg = fmt.Sprintf("Firecrawl scrape timed out (HTTP 408%s, timeout %s); the next poll tries again; "+
			"raise FEEDPOLLER_FIRECRAWL_TIMEOUT if the page needs longer than %s", prefixed(" ", apiCode), t, t)
	case code == http.StatusBadRequest:
		fe.Kind, fe.Msg = sources.KindPermanent, "Firecrawl rejected the request (400)"
	case code == http.StatusForbidden:
		fe.Kind, fe.Msg = sources.KindPermanent, "Firecrawl refuses to scrape this site (403)"
	case code == http.StatusNotFound:
		fe.Kind, fe.Msg = sources.KindPermanent, "Firecrawl API not found (404): check the API URL"
	case code == http.StatusInternalServerError && apiCode == "SCRAPE_ALL_ENGINES_FAILED":
		// Firecrawl answers this for an empty page, but as well for a
		// refused connection, a name that does not resolve and an address
		// it blocks: it could not get the page, and cannot say why.
		fe.Kind = sources.KindTransient
		fe.Msg = "Firecrawl could not fetch the page (empty page, unreachable host or DNS failure; HTTP 500 SCRAPE_ALL_ENGINES_FAILED)"
	case code >= 500:
		fe.Kind, fe.Msg = sources.KindTransient, fmt.Sprintf("Firecrawl failed (HTTP %d%s)", code, prefixed(" ", apiCode))
	case code >= 300 && code < 400:
		fe.Kind = sources.KindPermanent
		fe.Msg = fmt.Sprintf("Firecrawl API URL redirects (HTTP %d to %s): configure the final URL", code, seen.header.Get("Location"))
	case code >= 200 && code < 300:
		fe.Kind, fe.Msg = sources.KindTransient, fmt.Sprintf("Firecrawl answered unexpected HTTP %d", code)
	default:
		fe.Kind, fe.Msg = sources.KindPermanent, fmt.Sprintf("Firecrawl answered HTTP %d", code)
	}
	return fe
}

// fmtSeconds prints a timeout as configured people write it ("30s").
func fmtSeconds(d time.Duration) string {
	if d >= time.Second && d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

// errorDetail extracts Firecrawl's message (with zod details) and code
// from an error body, or describes a body that is not Firecrawl's JSON.
func errorDetail(body []byte) (string, string) {
	var ae apiError
	if json.Unmarshal(body, &ae) == nil && ae.Error != "" {
		msg := ae.Error
		for i, d := range ae.Details {
			if i == 3 {
				break
			}
			if d.Message != "" {
				msg += "; " + d.Message
			}
		}
		return msg, ae.Code
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return "empty body", ae.Code
	}
	return "non-JSON body: " + snippet(trimmed, 120), ae.Code
}

// retryAfter reads the pause a 429 asks for: the Retry-After header (a
// proxy may add one), else the "retry after Ns" of Firecrawl's message,
// else one rate-limit window.
func (c *Client) retryAfter(seen *exchange, detail string) time.Time {
	now := c.opts.Now()
	if v := strings.TrimSpace(seen.header.Get("Retry-After")); v != "" {
		if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
			return now.Add(time.Duration(secs) * time.Second)
		}
		if t, err := http.ParseTime(v); err == nil {
			return t
		}
	}
	if m := retryAfterInMessage.FindStringSubmatch(detail); m != nil {
		if secs, err := strconv.Atoi(m[1]); err == nil {
			return now.Add(time.Duration(secs) * time.Second)
		}
	}
	return now.Add(rateWindow)
}

// checkTarget fails a scrape whose target answered an error status, or
// whose page came back empty: Firecrawl reports both as success.
func checkTarget(p *Page) *sources.FetchError {
	code := p.StatusCode
	if code >= 400 {
		fe := &sources.FetchError{Status: code, Msg: fmt.Sprintf("target answered HTTP %d", code)}
		if e, _ := p.Metadata["error"].(string); e != "" {
			fe.Err = errors.New(e)
		}
		switch {
		case code == http.StatusGone:
			fe.Kind = sources.KindGone
		case code == http.StatusTooManyRequests:
			fe.Kind = sources.KindRateLimited
		case code == http.StatusRequestTimeout || code >= 500:
			fe.Kind = sources.KindTransient
		default:
			fe.Kind = sources.KindPermanent
		}
		return fe
	}
	if strings.TrimSpace(p.HTML) == "" {
		return &sources.FetchError{Kind: sources.KindTransient, Status: code, Msg: "page is empty"}
	}
	return nil
}

// snippet shortens hostile bodies for error messages.
func snippet(b []byte, n int) string {
	cut := len(b) > n
	if cut {
		b = b[:n]
	}
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "")), " ")
	if cut {
		s += "…"
	}
	return s
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}
