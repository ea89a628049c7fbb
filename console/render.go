package console

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
)

// pageError is a failure shown to the person with its status.
type pageError struct {
	Status  int
	Message string
}

func (e *pageError) Error() string { return e.Message }

func pageErr(status int, msg string) *pageError { return &pageError{Status: status, Message: msg} }

// statusOf is the status and the words of a failure; anything not meant
// for the person is a 500 whose details go to the log.
func (c *Console) statusOf(r *http.Request, err error) (int, string) {
	var (
		pe *pageError
		se *service.Error
	)
	switch {
	case errors.As(err, &pe):
		return pe.Status, pe.Message
	case errors.As(err, &se):
		if status := se.HTTPStatus(); status != http.StatusInternalServerError {
			return status, se.Message
		}
	case errors.Is(err, model.ErrNotFound):
		return http.StatusNotFound, "Not found."
	}
	c.log.ErrorContext(r.Context(), "console request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	return http.StatusInternalServerError, "Something went wrong on the server; its log has the details."
}

// fail shows err on an error page (rq nil: before a session).
func (c *Console) fail(w http.ResponseWriter, r *http.Request, rq *request, err error) {
	status, msg := c.statusOf(r, err)
	c.render(w, r, rq, status, "error", http.StatusText(status), errorData{Status: status, Message: msg})
}

type errorData struct {
	Status  int
	Message string
}

func (c *Console) notFound(w http.ResponseWriter, r *http.Request) {
	rq, err := c.session(r)
	if err != nil {
		rq = nil
	}
	c.fail(w, r, rq, pageErr(http.StatusNotFound, "There is no console page at "+r.URL.Path+"."))
}

// view is what the layout needs besides the page's own data.
type view struct {
	Title string
	// Req is nil on the sign-in page and on errors before a session.
	Req *request
	// Section is the navigation entry the page belongs to.
	Section string
	// Refresh, when positive, reloads the page after that many seconds
	// (a source waiting for its first poll); no script needed.
	Refresh int
	Data    any
}

// CSRF is the token every form of the page carries.
func (v view) CSRF() string {
	if v.Req == nil {
		return ""
	}
	return v.Req.csrf
}

// render writes a page with the layout. It renders into a buffer first,
// so a template failure is a clean 500, never half a page.
func (c *Console) render(w http.ResponseWriter, r *http.Request, rq *request, status int, name, title string, data any) {
	c.renderView(w, r, status, name, view{Title: title, Req: rq, Section: name, Data: data})
}

func (c *Console) renderView(w http.ResponseWriter, r *http.Request, status int, name string, v view) {
	t, ok := c.pages[name]
	if !ok {
		c.log.ErrorContext(r.Context(), "console: no such page template", "page", name)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		c.log.ErrorContext(r.Context(), "console: render page", "page", name, "err", err)
		http.Error(w, "internal error: the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes()) // a client gone away: nothing to tell it
}

// parsePages parses each page template with the layout and the shared
// pieces.
func parsePages() (map[string]*template.Template, error) {
	base, err := template.New("layout").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts.html")
	if err != nil {
		return nil, fmt.Errorf("console templates: %w", err)
	}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(path.Base(n), ".html")
		if name == "layout" || name == "parts" {
			continue
		}
		t, err := template.Must(base.Clone()).ParseFS(templateFS, n)
		if err != nil {
			return nil, fmt.Errorf("console template %s: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}

// serveStatic serves the console's stylesheet and script; nothing else
// is under static/, and no directory is listed.
func serveStatic(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	b, err := fs.ReadFile(staticFS, "static/"+name)
	if err != nil || strings.Contains(name, "/") {
		http.NotFound(w, r)
		return
	}
	switch path.Ext(name) {
	case ".css":
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
	case ".js":
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	case ".svg":
		w.Header().Set("Content-Type", "image/svg+xml")
	default:
		http.NotFound(w, r)
		return
	}
	// The files change only with the binary; a short cache spares the
	// reloads.
	w.Header().Set("Cache-Control", "private, max-age=300")
	_, _ = w.Write(b)
}

// redirect answers a form with the page to show next (303: the browser
// GETs it, and a reload does not post again).
func redirect(w http.ResponseWriter, r *http.Request, to string) error {
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}

// asServiceError is err as a service error, or nil.
func asServiceError(err error) *service.Error {
	var se *service.Error
	if errors.As(err, &se) {
		return se
	}
	return nil
}
