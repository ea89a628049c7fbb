package console

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/integrations/opml"
	"github.com/feedpoller/feedpoller/service"
)

type opmlData struct {
	Problem string
	Report  *opml.Report
}

func (c *Console) opmlPage(w http.ResponseWriter, r *http.Request, rq *request) error {
	c.renderView(w, r, http.StatusOK, "opml", view{Title: "Import and export OPML", Req: rq, Section: "sources", Data: opmlData{}})
	return nil
}

// importOPML imports an uploaded (or pasted) subscription list through
// the service, outline by outline, and shows its report.
func (c *Console) importOPML(w http.ResponseWriter, r *http.Request, rq *request) error {
	var body io.Reader
	if f, _, err := r.FormFile("file"); err == nil {
		defer func() { _ = f.Close() }() // an upload read from memory or a temporary file
		body = f
	} else if text := r.PostFormValue("text"); strings.TrimSpace(text) != "" {
		body = strings.NewReader(text)
	}
	show := func(status int, d opmlData) error {
		c.renderView(w, r, status, "opml", view{Title: "Import and export OPML", Req: rq, Section: "sources", Data: d})
		return nil
	}
	if body == nil {
		return show(http.StatusBadRequest, opmlData{Problem: "Choose an OPML file (or paste one) to import."})
	}
	// Validation fetches take a while for a long list.
	if err := http.NewResponseController(w).SetWriteDeadline(time.Time{}); err != nil {
		c.log.DebugContext(r.Context(), "console import: write deadline kept", "err", err)
	}
	rep, err := c.svc.ImportOPML(r.Context(), rq.ws.ID, body, service.ImportOptions{WebPages: r.PostFormValue("web_pages") != ""})
	if err != nil {
		status, msg := c.statusOf(r, err)
		if errors.Is(err, opml.ErrTooLarge) {
			status = http.StatusRequestEntityTooLarge
		}
		d := opmlData{Problem: msg}
		if len(rep.Outcomes) > 0 {
			d.Report = &rep
		}
		return show(status, d)
	}
	return show(http.StatusOK, opmlData{Report: &rep})
}

// exportOPML downloads the workspace's sources as OPML.
func (c *Console) exportOPML(w http.ResponseWriter, r *http.Request, rq *request) error {
	var buf bytes.Buffer
	if err := c.svc.ExportOPML(r.Context(), rq.ws.ID, &buf); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/x-opml; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="feedpoller-workspace-%d.opml"`, rq.ws.ID))
	_, _ = w.Write(buf.Bytes()) // a client gone away: nothing to tell it
	return nil
}
