package opml

import (
	"fmt"
	"net/url"
	"strings"
)

// Status is what became of one outline.
type Status string

const (
	// StatusAdded: a source was created.
	StatusAdded Status = "added"
	// StatusDuplicate: the workspace or an earlier outline of the file
	// has the URL already; skipped, not an error.
	StatusDuplicate Status = "duplicate"
	// StatusRejected: the outline cannot become a source; Reason says why.
	StatusRejected Status = "rejected"
	// StatusSkipped: not attempted because the import stopped first
	// (canceled, or the service failed); importing again may add it.
	StatusSkipped Status = "skipped"
)

// Outcome is the report of one outline.
type Outcome struct {
	// Index is the outline's position in the list given to Import.
	Index    int    `json:"index"`
	Line     int    `json:"line,omitempty"`
	Name     string `json:"name,omitempty"`
	URL      string `json:"url"`
	Type     string `json:"type,omitempty"`
	Category string `json:"category,omitempty"`
	Status   Status `json:"status"`
	Reason   string `json:"reason,omitempty"`
	// SourceID and Title are the created source's (StatusAdded).
	SourceID int64  `json:"source_id,omitempty"`
	Title    string `json:"title,omitempty"`
}

// task is one creation to run.
type task struct {
	idx  int
	spec Spec
	host string
}

// plan decides every outline that needs no creation (not importable, a
// duplicate in the file or of an existing source) and lists the creations
// for the rest, in document order.
func plan(outlines []Outline, opts ImportOptions) ([]Outcome, []task) {
	key := opts.Key
	if key == nil {
		key = DedupKey
	}
	existing := make(map[string]bool, len(opts.Existing))
	for _, u := range opts.Existing {
		existing[key(u)] = true
	}
	seen := map[string]int{} // key → index of the first outline with it
	outcomes := make([]Outcome, len(outlines))
	var tasks []task
	for i, o := range outlines {
		spec := Spec{Title: o.Name(), Category: o.Category}
		out := Outcome{Index: i, Line: o.Line, Name: o.Name(), Category: o.Category}
		switch {
		case o.XMLURL != "":
			spec.URL, spec.Type, spec.SiteURL = o.XMLURL, TypeRSS, o.HTMLURL
		case opts.WebPages || o.WebPage:
			spec.URL, spec.Type = o.HTMLURL, TypeWeb
		default:
			out.URL, out.Status = o.HTMLURL, StatusRejected
			out.Reason = "only an htmlUrl (a web page, not a feed): import with web pages enabled to add it as a web source"
			outcomes[i] = out
			continue
		}
		out.URL, out.Type = spec.URL, spec.Type
		host, err := httpHost(spec.URL)
		if err != nil {
			out.Status, out.Reason = StatusRejected, err.Error()
			outcomes[i] = out
			continue
		}
		k := key(spec.URL)
		if first, dup := seen[k]; dup {
			out.Status = StatusDuplicate
			out.Reason = fmt.Sprintf("same URL as outline %d%s earlier in the file", first+1, lineOf(outlines[first]))
			outcomes[i] = out
			continue
		}
		seen[k] = i
		if existing[k] {
			out.Status, out.Reason = StatusDuplicate, "the workspace already has this source"
			outcomes[i] = out
			continue
		}
		outcomes[i] = out
		tasks = append(tasks, task{idx: i, spec: spec, host: host})
	}
	return outcomes, tasks
}

func lineOf(o Outline) string {
	if o.Line == 0 {
		return ""
	}
	return fmt.Sprintf(" (line %d)", o.Line)
}

// httpHost is the lower-cased host of an absolute http(s) URL, or an error
// that names what is wrong with it.
func httpHost(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%q is not a URL", raw)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("%q is not an http or https URL", raw)
	}
	if u.Hostname() == "" {
		return "", fmt.Errorf("%q has no host", raw)
	}
	return strings.ToLower(u.Hostname()), nil
}

// DedupKey is the default key two outline URLs are the same source by:
// scheme and host compared without case, the default port and the
// fragment dropped. Path and query are kept as written, since servers
// may tell them apart.
func DedupKey(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return raw
	}
	u.Scheme = strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	u.Host = host
	u.Fragment, u.RawFragment = "", ""
	if u.Path == "" {
		u.Path = "/"
	}
	return u.String()
}
