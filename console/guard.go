package console

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/feedpoller/feedpoller/auth"
	"github.com/feedpoller/feedpoller/integrations/opml"
	"github.com/feedpoller/feedpoller/model"
)

// csp allows the console's own stylesheet and script and nothing else:
// no inline script or style, no frames, no form posted elsewhere, no
// image, font or connection to another origin.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// secureHeaders sets what every console answer carries. Pages show
// workspace data, so nothing is stored by a browser or a proxy. The
// referrer stays within the console (links out carry rel=noreferrer too);
// "no-referrer" would make browsers send "Origin: null" with the forms,
// which sameOrigin refuses.
func secureHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// request is a signed-in request: who it acts as, its session, and the
// workspace of a /w/{ws} path.
type request struct {
	caller auth.Caller
	sid    []byte
	idHash string
	csrf   string
	flash  *flash
	ws     *model.Workspace
}

// handler is a page: it writes its answer itself or returns the failure
// for fail to show.
type handler func(w http.ResponseWriter, r *http.Request, rq *request) error

// maxFormBytes bounds a form: an OPML upload and a little more.
const maxFormBytes = opml.DefaultMaxBytes + 1<<20

// authed runs h for a signed-in caller. A POST must carry the session's
// CSRF token, come from this origin and, but for signing out, come from a
// token that may write: a read-only token's forged form is refused with
// 403 before anything is done.
func (c *Console) authed(h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rq, err := c.session(r)
		if errors.Is(err, errSignedOut) {
			to := Prefix + "/signin"
			if _, noCookie := r.Cookie(sessionCookie); noCookie == nil {
				// A cookie whose session is gone: say why, and drop it.
				setCookie(w, r, sessionCookie, "", Prefix+"/", 0)
				to += "?m=expired"
			}
			http.Redirect(w, r, to, http.StatusSeeOther)
			return
		}
		if err != nil {
			c.fail(w, r, nil, err)
			return
		}
		if r.Method == http.MethodPost {
			if err := c.checkPost(w, r, rq); err != nil {
				c.fail(w, r, rq, err)
				return
			}
		} else if rq.flash != nil {
			// Shown on this page, so not on the next.
			if err := c.store.SetConsoleFlash(r.Context(), rq.idHash, ""); err != nil {
				c.log.WarnContext(r.Context(), "console: clear the shown message", "err", err)
			}
		}
		if v := r.PathValue("ws"); v != "" {
			if rq.ws, err = c.workspace(r, rq, v); err != nil {
				c.fail(w, r, rq, err)
				return
			}
		}
		if err := h(w, r, rq); err != nil {
			c.fail(w, r, rq, err)
		}
	})
}

// checkPost applies the rules every form obeys.
func (c *Console) checkPost(w http.ResponseWriter, r *http.Request, rq *request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	var err error
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		err = r.ParseMultipartForm(1 << 20)
	} else {
		err = r.ParseForm()
	}
	if err != nil {
		return pageErr(http.StatusBadRequest, "The form could not be read: "+err.Error())
	}
	if !sameOrigin(r) || subtle.ConstantTimeCompare([]byte(r.PostFormValue("csrf")), []byte(rq.csrf)) != 1 {
		return pageErr(http.StatusForbidden, "This form did not come from this console page (its CSRF token is missing or stale): go back, reload and try again.")
	}
	if rq.caller.ReadOnly && r.URL.Path != Prefix+"/signout" {
		return pageErr(http.StatusForbidden, "This token may only read: it cannot change anything.")
	}
	return nil
}

// sameOrigin refuses a request whose Origin (sent by browsers with every
// POST) names another site; a request without one passes on its CSRF
// token alone.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}

// workspace resolves a {ws} path segment to a workspace the caller may
// see; any other is "not found", as the API answers.
func (c *Console) workspace(r *http.Request, rq *request, v string) (*model.Workspace, error) {
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil || id <= 0 || !rq.caller.May(id) {
		return nil, pageErr(http.StatusNotFound, "Workspace not found.")
	}
	return c.svc.GetWorkspace(r.Context(), id)
}

// requireAdmin refuses everyone but the admin, as the API does for the
// same actions.
func requireAdmin(rq *request) error {
	if !rq.caller.Admin {
		return pageErr(http.StatusForbidden, "This needs an admin token.")
	}
	return nil
}

// pathID parses a positive id path segment.
func pathID(r *http.Request, name string) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	return id, err == nil && id > 0
}

// Workspace is the page's workspace, nil outside one (for templates).
func (rq *request) Workspace() *model.Workspace { return rq.ws }

// Admin reports an admin caller.
func (rq *request) Admin() bool { return rq.caller.Admin }

// ReadOnly reports a caller that may only read: its pages show no write
// controls.
func (rq *request) ReadOnly() bool { return rq.caller.ReadOnly }

// Message is the flash the page shows, or nil.
func (rq *request) Message() *flash { return rq.flash }

// Who says what the session acts as.
func (rq *request) Who() string {
	s := "admin token"
	if !rq.caller.Admin {
		s = "token of workspace " + strconv.FormatInt(rq.caller.WorkspaceID, 10)
	}
	if rq.caller.TokenID == 0 && rq.caller.Admin {
		s = "configured admin token"
	} else if rq.caller.TokenID != 0 {
		s += " #" + strconv.FormatInt(rq.caller.TokenID, 10)
	}
	if rq.caller.ReadOnly {
		s = "read-only " + s
	}
	return s
}
