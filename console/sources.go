package console

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
)

func wsURL(id int64, rest string) string { return fmt.Sprintf("%s/w/%d%s", Prefix, id, rest) }

// home sends a workspace token to its workspace; the admin sees the
// workspaces (or goes straight to the only one).
func (c *Console) home(w http.ResponseWriter, r *http.Request, rq *request) error {
	if !rq.caller.Admin {
		return redirect(w, r, wsURL(rq.caller.WorkspaceID, "/sources"))
	}
	wss, err := c.svc.ListWorkspaces(r.Context())
	if err != nil {
		return err
	}
	if len(wss) == 1 && rq.flash == nil {
		return redirect(w, r, wsURL(wss[0].ID, "/sources"))
	}
	c.render(w, r, rq, http.StatusOK, "workspaces", "Workspaces", workspacesData{Workspaces: wss})
	return nil
}

type workspacesData struct {
	Workspaces []model.Workspace
	Name       string
	Problem    string
}

// createWorkspace makes an empty workspace (admin only, as in the API).
func (c *Console) createWorkspace(w http.ResponseWriter, r *http.Request, rq *request) error {
	if err := requireAdmin(rq); err != nil {
		return err
	}
	name := r.PostFormValue("name")
	ws, err := c.svc.CreateWorkspace(r.Context(), service.WorkspaceSpec{Name: name})
	if err != nil {
		status, msg := c.statusOf(r, err)
		wss, lerr := c.svc.ListWorkspaces(r.Context())
		if lerr != nil {
			return lerr
		}
		c.render(w, r, rq, status, "workspaces", "Workspaces", workspacesData{Workspaces: wss, Name: name, Problem: msg})
		return nil
	}
	c.setFlash(r, rq, true, fmt.Sprintf("Workspace %q created: add its first source.", ws.Name))
	return redirect(w, r, wsURL(ws.ID, "/sources/new"))
}

func (c *Console) workspaceHome(w http.ResponseWriter, r *http.Request, rq *request) error {
	return redirect(w, r, wsURL(rq.ws.ID, "/sources"))
}

// sourceRow is a source with its last poll, as the list shows it.
type sourceRow struct {
	Src  model.FeedSource
	Last *model.PollRun
	Due  bool
}

// Failing: polled and the last poll failed, or failures counted.
func (s sourceRow) Failing() bool {
	return s.Src.ConsecutiveFailures > 0 || s.Src.LastPolledStatus == model.StatusError || s.Src.LastPolledStatus == model.StatusGone
}

// Disabled: no longer polled by the scheduler because of failures.
func (s sourceRow) Disabled() bool { return s.Src.ConsecutiveFailures >= model.MaxConsecutiveFailures }

// State is the source's state in a word.
func (s sourceRow) State() string {
	switch {
	case !s.Src.IsActive:
		return "paused"
	case s.Disabled():
		return "stopped after failures"
	case s.Failing():
		return "failing"
	case s.Src.LastPolledAt == nil:
		return "waiting for its first poll"
	}
	return "healthy"
}

// StateClass names the state for the stylesheet.
func (s sourceRow) StateClass() string {
	switch {
	case !s.Src.IsActive:
		return "paused"
	case s.Failing():
		return "bad"
	case s.Src.LastPolledAt == nil:
		return "new"
	}
	return "good"
}

// WebSubState says whether items are pushed.
func (s sourceRow) WebSubState() string {
	switch {
	case s.Src.WebSub != nil:
		return s.Src.WebSub.State
	case s.Src.HubURL != "":
		return "hub advertised, not subscribed"
	}
	return "none"
}

// sourceFilters are the list's filters.
var sourceFilters = []struct{ Value, Label string }{
	{"", "all"}, {"active", "active"}, {"paused", "paused"}, {"failing", "failing"}, {"healthy", "healthy"},
}

func (s sourceRow) matches(status, category string) bool {
	if category != "" && s.Src.Category != category {
		return false
	}
	switch status {
	case "active":
		return s.Src.IsActive
	case "paused":
		return !s.Src.IsActive
	case "failing":
		return s.Src.IsActive && s.Failing()
	case "healthy":
		return s.Src.IsActive && !s.Failing() && s.Src.LastPolledAt != nil
	}
	return true
}

type sourcesData struct {
	Rows       []sourceRow
	Total      int
	Status     string
	Category   string
	Categories []string
	Filters    []struct{ Value, Label string }
}

func (c *Console) sourcesPage(w http.ResponseWriter, r *http.Request, rq *request) error {
	srcs, err := c.svc.ListSources(r.Context(), rq.ws.ID)
	if err != nil {
		return err
	}
	last, err := c.store.LatestPollRuns(r.Context(), rq.ws.ID)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	d := sourcesData{Total: len(srcs), Status: q.Get("status"), Category: q.Get("category"), Filters: sourceFilters}
	now := time.Now()
	for _, src := range srcs {
		row := sourceRow{Src: src, Due: src.IsActive && src.ConsecutiveFailures < model.MaxConsecutiveFailures && !src.NextPollAt.After(now)}
		if run, ok := last[src.ID]; ok {
			row.Last = &run
		}
		if src.Category != "" && !slices.Contains(d.Categories, src.Category) {
			d.Categories = append(d.Categories, src.Category)
		}
		if row.matches(d.Status, d.Category) {
			d.Rows = append(d.Rows, row)
		}
	}
	slices.Sort(d.Categories)
	c.render(w, r, rq, http.StatusOK, "sources", "Sources", d)
	return nil
}

// sourceForm is the add form as typed, and what was wrong with it.
type sourceForm struct {
	URL, Type, Title, Category, Schedule, Interval string
	Problem                                        string
	Fields                                         map[string]string
}

func (c *Console) newSourcePage(w http.ResponseWriter, r *http.Request, rq *request) error {
	c.renderView(w, r, http.StatusOK, "source_new", view{Title: "Add a source", Req: rq, Section: "sources",
		Data: sourceForm{Type: model.SourceRSS, Schedule: model.ScheduleAdaptive}})
	return nil
}

// addSource creates the source through the service, which validates it
// as it does for the API; its field errors are shown beside the fields.
func (c *Console) addSource(w http.ResponseWriter, r *http.Request, rq *request) error {
	f := sourceForm{URL: strings.TrimSpace(r.PostFormValue("url")), Type: r.PostFormValue("source_type"),
		Title: r.PostFormValue("title"), Category: r.PostFormValue("category"),
		Schedule: r.PostFormValue("schedule"), Interval: strings.TrimSpace(r.PostFormValue("polling_interval_minutes")),
		Fields: map[string]string{}}
	spec := service.SourceSpec{URL: f.URL, SourceType: f.Type}
	if t := strings.TrimSpace(f.Title); t != "" {
		spec.Title = &f.Title
	}
	if strings.TrimSpace(f.Category) != "" {
		spec.Category = &f.Category
	}
	if f.Schedule != "" {
		spec.Schedule = &f.Schedule
	}
	if f.Interval != "" {
		n, err := strconv.Atoi(f.Interval)
		if err != nil {
			f.Fields["polling_interval_minutes"] = "must be a whole number of minutes"
		}
		spec.PollingIntervalMinutes = &n
	}
	var created *service.CreatedSource
	err := error(nil)
	if len(f.Fields) == 0 {
		created, err = c.svc.CreateSource(r.Context(), rq.ws.ID, spec)
	}
	if err != nil || len(f.Fields) > 0 {
		status := http.StatusBadRequest
		if err != nil {
			var msg string
			status, msg = c.statusOf(r, err)
			f.Problem = msg
			if se := asServiceError(err); se != nil && len(se.Fields) > 0 {
				for k, v := range se.Fields {
					f.Fields[k] = v
				}
				// Each reason is shown beside its field.
				f.Problem = "Correct the marked fields."
			}
		} else {
			f.Problem = "Correct the fields marked below."
		}
		c.renderView(w, r, status, "source_new", view{Title: "Add a source", Req: rq, Section: "sources", Data: f})
		return nil
	}
	c.setFlash(r, rq, true, createdWords(created))
	return redirect(w, r, wsURL(rq.ws.ID, fmt.Sprintf("/sources/%d", created.Source.ID)))
}

func createdWords(c *service.CreatedSource) string {
	s := fmt.Sprintf("Added %q.", sourceTitle(c.Source))
	switch {
	case c.Source.SourceType == model.SourceRSS && c.Validated:
		s += fmt.Sprintf(" The feed answered with %s.", plural(c.ItemCount, "item"))
	case c.Source.SourceType == model.SourceWeb && c.Validated:
		s += " The page answered."
	}
	if c.Source.IsActive {
		s += " Its first poll is due now."
	}
	if c.Hint != "" {
		s += " Hint: " + c.Hint + "."
	}
	return s
}

type sourceData struct {
	Row   sourceRow
	Polls []model.PollRun
}

// recentPolls is how many poll runs a source's page shows.
const recentPolls = 15

func (c *Console) sourcePage(w http.ResponseWriter, r *http.Request, rq *request) error {
	src, err := c.source(r, rq)
	if err != nil {
		return err
	}
	runs, err := c.store.ListPollRuns(r.Context(), src.ID, recentPolls)
	if err != nil {
		return err
	}
	row := sourceRow{Src: *src}
	if len(runs) > 0 {
		row.Last = &runs[0]
	}
	v := view{Title: sourceTitle(*src), Req: rq, Section: "sources", Data: sourceData{Row: row, Polls: runs}}
	if src.IsActive && src.LastPolledAt == nil {
		// Waiting for the first poll: show it when it lands.
		v.Refresh = 5
	}
	c.renderView(w, r, http.StatusOK, "source", v)
	return nil
}

// source resolves {id} to a source of the request's workspace.
func (c *Console) source(r *http.Request, rq *request) (*model.FeedSource, error) {
	id, ok := pathID(r, "id")
	if !ok {
		return nil, pageErr(http.StatusNotFound, "Source not found.")
	}
	return c.svc.GetSource(r.Context(), rq.ws.ID, id)
}

func (c *Console) setActive(active bool) handler {
	return func(w http.ResponseWriter, r *http.Request, rq *request) error {
		src, err := c.source(r, rq)
		if err != nil {
			return err
		}
		if _, err := c.svc.UpdateSource(r.Context(), rq.ws.ID, src.ID, service.SourceChange{IsActive: &active}); err != nil {
			return err
		}
		msg := "Paused: the scheduler no longer polls it."
		if active {
			msg = "Resumed: its failures are cleared and it is due now."
		}
		c.setFlash(r, rq, true, msg)
		return redirect(w, r, wsURL(rq.ws.ID, fmt.Sprintf("/sources/%d", src.ID)))
	}
}

// pollSource polls at once and shows the outcome on the source's page.
func (c *Console) pollSource(w http.ResponseWriter, r *http.Request, rq *request) error {
	src, err := c.source(r, rq)
	if err != nil {
		return err
	}
	out, err := c.svc.PollSource(r.Context(), rq.ws.ID, src.ID)
	if err != nil {
		if se := asServiceError(err); se != nil {
			c.setFlash(r, rq, false, se.Message)
			return redirect(w, r, wsURL(rq.ws.ID, fmt.Sprintf("/sources/%d", src.ID)))
		}
		return err
	}
	c.setFlash(r, rq, out.Error == "", pollWords(out))
	return redirect(w, r, wsURL(rq.ws.ID, fmt.Sprintf("/sources/%d", src.ID)))
}

// pollWords tells a poll's outcome in one sentence.
func pollWords(o model.PollOutcome) string {
	s := "Polled: " + outcomeWords(o.Status)
	if o.HTTPStatus != 0 {
		s += fmt.Sprintf(" (HTTP %d)", o.HTTPStatus)
	}
	s += fmt.Sprintf("; %d new, %d duplicate, %d promoted.", o.ItemsNew, o.ItemsDuplicate, o.ItemsPromoted)
	if o.Error != "" {
		s += " Error: " + o.Error + "."
	}
	if !o.NextPollAt.IsZero() {
		s += " Next poll " + ago(o.NextPollAt)
		if o.NextPollReason != "" {
			s += " (" + o.NextPollReason + ")"
		}
		s += "."
	}
	return s
}

func (c *Console) deleteSourcePage(w http.ResponseWriter, r *http.Request, rq *request) error {
	src, err := c.source(r, rq)
	if err != nil {
		return err
	}
	c.renderView(w, r, http.StatusOK, "source_delete", view{Title: "Delete " + sourceTitle(*src), Req: rq, Section: "sources", Data: src})
	return nil
}

func (c *Console) deleteSource(w http.ResponseWriter, r *http.Request, rq *request) error {
	src, err := c.source(r, rq)
	if err != nil {
		return err
	}
	if err := c.svc.DeleteSource(r.Context(), rq.ws.ID, src.ID); err != nil {
		return err
	}
	c.setFlash(r, rq, true, fmt.Sprintf("Deleted %q and its poll history; its articles and content items are kept.", sourceTitle(*src)))
	return redirect(w, r, wsURL(rq.ws.ID, "/sources"))
}
