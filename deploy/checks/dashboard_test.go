package checks

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/feedpoller/feedpoller/integrations/webhooks"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/websub"
)

// capture records the collectors a package registers.
type capture struct {
	prometheus.Registerer
	collectors []prometheus.Collector
}

func (c *capture) Register(col prometheus.Collector) error {
	c.collectors = append(c.collectors, col)
	return c.Registerer.Register(col)
}

func (c *capture) MustRegister(cols ...prometheus.Collector) {
	c.collectors = append(c.collectors, cols...)
	c.Registerer.MustRegister(cols...)
}

// series are the series names a daemon exposes, each with the labels it
// carries (scrape labels aside).
type series map[string]map[string]bool

var (
	descName   = regexp.MustCompile(`fqName: "([^"]+)"`)
	descLabels = regexp.MustCompile(`variableLabels: \{([^}]*)\}`)
)

// registeredSeries builds a registry the way the daemon does, from the
// packages' own constructors, and lists every series name it can expose:
// a histogram as its _bucket, _sum and _count.
func registeredSeries(t *testing.T) series {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	c := &capture{Registerer: reg}
	if _, err := poller.NewMetrics(c); err != nil {
		t.Fatal(err)
	}
	webhooks.NewMetrics(c)
	if _, err := websub.NewMetrics(c); err != nil {
		t.Fatal(err)
	}
	out := series{}
	add := func(name string, histogram bool, labels map[string]bool) {
		if !histogram {
			out[name] = labels
			return
		}
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			out[name+suffix] = labels
		}
		out[name+"_bucket"]["le"] = true
	}
	for _, col := range c.collectors {
		_, histogram := col.(interface{ Observe(float64) })
		if _, ok := col.(*prometheus.HistogramVec); ok {
			histogram = true
		}
		ch := make(chan *prometheus.Desc, 16)
		go func() { col.Describe(ch); close(ch) }()
		for d := range ch {
			s := d.String()
			m := descName.FindStringSubmatch(s)
			if m == nil {
				t.Fatalf("cannot read a metric name from %s", s)
			}
			labels := map[string]bool{}
			if l := descLabels.FindStringSubmatch(s); l != nil {
				for _, name := range strings.Split(l[1], ",") {
					if name = strings.TrimSpace(name); name != "" {
						labels[name] = true
					}
				}
			}
			add(m[1], histogram, labels)
		}
	}
	// The runtime collectors always have values: their families say what
	// they are.
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if _, known := out[f.GetName()]; known || strings.HasPrefix(f.GetName(), "feedpoller_") {
			continue
		}
		labels := map[string]bool{}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = true
			}
		}
		add(f.GetName(), f.GetType() == dto.MetricType_HISTOGRAM || f.GetType() == dto.MetricType_SUMMARY, labels)
	}
	return out
}

// grafanaVars stand in for the dashboard's variables so an expression
// parses as the query Grafana sends.
var grafanaVars = strings.NewReplacer("$__rate_interval", "5m", "$__range", "6h", "$__interval", "1m", "$instance", ".*")

// selectors parses a PromQL expression and returns its vector selectors.
func selectors(expr string) ([]*parser.VectorSelector, error) {
	e, err := parser.NewParser(parser.Options{}).ParseExpr(grafanaVars.Replace(expr))
	if err != nil {
		return nil, err
	}
	var out []*parser.VectorSelector
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			out = append(out, vs)
		}
		return nil
	})
	return out, nil
}

type dashboard struct {
	SchemaVersion int     `json:"schemaVersion"`
	Title         string  `json:"title"`
	UID           string  `json:"uid"`
	Panels        []panel `json:"panels"`
	Templating    struct {
		List []struct {
			Name       string          `json:"name"`
			Type       string          `json:"type"`
			Query      json.RawMessage `json:"query"`
			Definition string          `json:"definition"`
		} `json:"list"`
	} `json:"templating"`
}

type panel struct {
	ID         int         `json:"id"`
	Type       string      `json:"type"`
	Title      string      `json:"title"`
	Datasource *datasource `json:"datasource"`
	GridPos    struct{ X, Y, W, H int }
	Targets    []struct {
		RefID      string      `json:"refId"`
		Expr       string      `json:"expr"`
		Datasource *datasource `json:"datasource"`
	} `json:"targets"`
}

type datasource struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

func TestGrafanaDashboard(t *testing.T) {
	raw, err := os.ReadFile("grafana/feedpoller-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if d.SchemaVersion < 36 || d.Title == "" || d.UID == "" || len(d.Panels) == 0 {
		t.Fatalf("schemaVersion %d, title %q, uid %q, %d panels: not a Grafana dashboard model", d.SchemaVersion, d.Title, d.UID, len(d.Panels))
	}
	known := registeredSeries(t)
	vars := map[string]string{}
	for _, v := range d.Templating.List {
		vars[v.Name] = v.Type
	}
	if vars["datasource"] != "datasource" {
		t.Errorf("no datasource variable: the dashboard cannot be pointed at a Prometheus on import")
	}
	check := func(where, expr string) {
		sels, err := selectors(expr)
		if err != nil {
			t.Errorf("%s: %q is not PromQL: %v", where, expr, err)
			return
		}
		for _, vs := range sels {
			labels, ok := known[vs.Name]
			if !ok {
				t.Errorf("%s: %s is not a metric feedpoller registers", where, vs.Name)
				continue
			}
			for _, m := range vs.LabelMatchers {
				if m.Name != "__name__" && m.Name != "instance" && m.Name != "job" && !labels[m.Name] {
					t.Errorf("%s: %s has no label %q", where, vs.Name, m.Name)
				}
			}
		}
	}
	for _, v := range d.Templating.List {
		if m := regexp.MustCompile(`label_values\((\w+),`).FindStringSubmatch(v.Definition); m != nil {
			check("variable "+v.Name, m[1])
		}
	}
	ids := map[int]bool{}
	seen := map[string]bool{}
	for _, p := range d.Panels {
		where := fmt.Sprintf("panel %d %q", p.ID, p.Title)
		if ids[p.ID] {
			t.Errorf("%s: duplicate id", where)
		}
		ids[p.ID] = true
		if p.Title == "" || p.GridPos.W <= 0 || p.GridPos.H <= 0 || p.GridPos.X+p.GridPos.W > 24 {
			t.Errorf("%s: title or gridPos %+v is not valid", where, p.GridPos)
		}
		if p.Type == "row" {
			continue
		}
		switch p.Type {
		case "timeseries", "stat", "gauge", "table", "bargauge":
		default:
			t.Errorf("%s: unknown panel type %q", where, p.Type)
		}
		if p.Datasource == nil || p.Datasource.Type != "prometheus" || p.Datasource.UID != "${datasource}" {
			t.Errorf("%s: datasource %+v, want the dashboard's Prometheus variable", where, p.Datasource)
		}
		if len(p.Targets) == 0 {
			t.Errorf("%s: no targets", where)
		}
		refs := map[string]bool{}
		for _, tg := range p.Targets {
			if tg.RefID == "" || refs[tg.RefID] || tg.Expr == "" {
				t.Errorf("%s: target %+v needs a unique refId and an expr", where, tg)
			}
			refs[tg.RefID] = true
			check(where, tg.Expr)
			sels, _ := selectors(tg.Expr)
			for _, vs := range sels {
				seen[vs.Name] = true
			}
		}
	}
	// The panels the feature promises.
	for _, name := range []string{"feedpoller_polls_total", "feedpoller_poll_duration_seconds_bucket", "feedpoller_scheduler_lag_seconds_bucket",
		"feedpoller_due_sources", "feedpoller_items_total", "feedpoller_webhook_deliveries_total", "feedpoller_webhook_attempts_total",
		"feedpoller_sources_failing", "feedpoller_sources_disabled"} {
		if !seen[name] {
			t.Errorf("no panel shows %s", name)
		}
	}
}

// The checker itself catches what it is there for.
func TestDashboardCheckerCatchesMistakes(t *testing.T) {
	known := registeredSeries(t)
	if _, ok := known["feedpoller_polls_total"]; !ok {
		t.Fatalf("registered series %v lack feedpoller_polls_total", known)
	}
	if _, ok := known["feedpoller_webhook_delivery_lag_seconds_bucket"]; !ok {
		t.Errorf("a webhook histogram is missing its _bucket series")
	}
	if _, ok := known["feedpoller_poll_duration_seconds"]; ok {
		t.Errorf("a histogram's bare name counted as a series")
	}
	if _, err := selectors(`sum(rate(feedpoller_polls_total[5m]`); err == nil {
		t.Errorf("unbalanced PromQL parsed")
	}
	sels, err := selectors(`histogram_quantile(0.9, sum by (le) (rate(x_bucket{instance=~"$instance"}[$__rate_interval]))) / y`)
	if err != nil || len(sels) != 2 || sels[0].Name != "x_bucket" || sels[1].Name != "y" {
		t.Errorf("selectors = %v, %v", sels, err)
	}
	if !known["feedpoller_polls_total"]["outcome"] || known["feedpoller_polls_total"]["result"] {
		t.Errorf("labels of feedpoller_polls_total: %v", known["feedpoller_polls_total"])
	}
}
