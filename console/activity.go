package console

import (
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// pollSeries are the poll outcomes in the order they stack, each with its
// colour class.
var pollSeries = []seriesDef{
	{model.StatusOK, "new content", "o-ok"},
	{model.StatusNotModified, "not modified", "o-nm"},
	{"pushed", "pushed", "o-push"},
	{model.StatusDeferred, "deferred", "o-def"},
	{model.StatusError, "failed", "o-err"},
	{model.StatusGone, "gone", "o-gone"},
	{model.StatusNotSupported, "not polled", "o-other"},
}

// sourceColours is how many sources get a colour of their own; the rest
// share one.
const sourceColours = 7

type activityData struct {
	Range  string
	Polls  chart
	Arts   chart
	Ranges []string
}

// activityPage charts the last week or month: polls per hour by outcome,
// and new articles per day by source.
func (c *Console) activityPage(w http.ResponseWriter, r *http.Request, rq *request) error {
	rng := r.URL.Query().Get("range")
	days := 7
	if rng == "month" {
		days = 30
	} else {
		rng = "week"
	}
	now := time.Now().UTC()
	hourEnd := now.Truncate(time.Hour).Add(time.Hour)
	dayEnd := now.Truncate(24 * time.Hour).Add(24 * time.Hour)
	hours := days * 24
	pollRows, err := c.store.PollActivity(r.Context(), rq.ws.ID, hourEnd.Add(-time.Duration(hours)*time.Hour), hourEnd, time.Hour)
	if err != nil {
		return err
	}
	artRows, err := c.store.ArticleActivity(r.Context(), rq.ws.ID, dayEnd.AddDate(0, 0, -days), dayEnd, 24*time.Hour)
	if err != nil {
		return err
	}
	srcs, err := c.svc.ListSources(r.Context(), rq.ws.ID)
	if err != nil {
		return err
	}
	labelDays := 1
	if days > 7 {
		labelDays = 5
	}
	d := activityData{Range: rng, Ranges: []string{"week", "month"}}
	d.Polls = buildChart(chartSpec{ID: "polls", Title: "Polls per hour, by outcome",
		Desc:   "Each bar is one hour (UTC) of the last " + strconv.Itoa(days) + " days; its segments count the polls of this workspace's sources by how they ended.",
		Series: pollSeries, Start: hourEnd.Add(-time.Duration(hours) * time.Hour), Step: time.Hour, N: hours,
		Counts: countsByBucket(pollRows, hours, pollKey), LabelDays: labelDays, LabelFormat: dayLabelFm})
	series := articleSeries(artRows, srcs)
	d.Arts = buildChart(chartSpec{ID: "articles", Title: "New articles per day, by source",
		Desc:   "Each bar is one day (UTC) of the last " + strconv.Itoa(days) + " days; its segments count the articles stored from each source.",
		Series: series, Start: dayEnd.AddDate(0, 0, -days), Step: 24 * time.Hour, N: days,
		Counts: countsByBucket(artRows, days, articleKey(series)), LabelDays: labelDays, LabelFormat: dayLabelFm})
	c.renderView(w, r, http.StatusOK, "activity", view{Title: "Activity", Req: rq, Section: "activity", Data: d})
	return nil
}

// countsByBucket turns the store's rows (counted back from the end) into
// counts by bucket from the start, each key mapped by key.
func countsByBucket(rows []model.ActivityCount, n int, key func(string) string) map[int]map[string]int {
	out := map[int]map[string]int{}
	for _, row := range rows {
		i := n - 1 - row.Ago
		if i < 0 || i >= n {
			continue
		}
		if out[i] == nil {
			out[i] = map[string]int{}
		}
		out[i][key(row.Key)] += row.Count
	}
	return out
}

// pollKey files an outcome the chart has no series for under "not polled".
func pollKey(k string) string {
	for _, s := range pollSeries {
		if s.Key == k {
			return k
		}
	}
	return model.StatusNotSupported
}

// articleSeries gives the sources with the most articles a colour each,
// the others one between them, and articles of deleted sources their own.
func articleSeries(rows []model.ActivityCount, srcs []model.FeedSource) []seriesDef {
	totals := map[string]int{}
	for _, row := range rows {
		totals[row.Key] += row.Count
	}
	names := map[string]string{}
	for _, s := range srcs {
		names[strconv.FormatInt(s.ID, 10)] = sourceTitle(s)
	}
	var keys []string
	for k := range totals {
		if k != "" {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(totals[b], totals[a]), cmp.Compare(a, b)) })
	var out []seriesDef
	for i, k := range keys {
		if i == sourceColours {
			out = append(out, seriesDef{Key: "others", Label: "other sources", Class: "s-other"})
			break
		}
		name := names[k]
		if name == "" {
			name = "source " + k
		}
		out = append(out, seriesDef{Key: k, Label: name, Class: "s" + strconv.Itoa(i)})
	}
	if totals[""] > 0 {
		out = append(out, seriesDef{Key: "", Label: "deleted sources", Class: "s-gone"})
	}
	return out
}

// articleKey maps a source id to its series' key.
func articleKey(series []seriesDef) func(string) string {
	own := map[string]bool{}
	for _, s := range series {
		own[s.Key] = true
	}
	return func(k string) string {
		if own[k] {
			return k
		}
		return "others"
	}
}
