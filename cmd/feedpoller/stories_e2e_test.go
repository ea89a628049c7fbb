package main

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/storyfeeds"
	"github.com/feedpoller/feedpoller/internal/testdb"
)

// report is one outlet's article: independently written reports of one
// event share its names and figures, not their sentences.
type report struct {
	slug, title string
	paras       []string
	ago         time.Duration
}

// Two earthquakes: one in Chile, reported by three outlets in their own
// words and carried by a fourth as a syndicated copy, and one in Peru two
// days later, reported by two outlets. Same topic, different events.
var (
	chileWire = report{"chile-quake", "Magnitude 6.8 earthquake strikes off central Chile", []string{
		"A magnitude 6.8 earthquake struck off the coast of central Chile early on Tuesday, shaking buildings in the capital Santiago and the port city of Valparaiso, the U.S. Geological Survey said.",
		"The quake hit at 3:12 a.m. local time at a depth of 31 kilometres, about 48 km west of Valparaiso, according to the USGS. Chile's navy said the earthquake did not meet the conditions to generate a tsunami along the coast.",
		"The national disaster agency said there were no immediate reports of deaths. Power was cut to about 120,000 homes in the Valparaiso region and some residents of coastal neighbourhoods left their homes as a precaution.",
	}, 50 * time.Hour}
	chileDaily = report{"valparaiso-jolted", "Valparaiso and Santiago jolted awake as quake hits central Chile", []string{
		"Residents of Valparaiso and Santiago were jolted awake before dawn on Tuesday when a powerful offshore earthquake, measured at magnitude 6.8 by the USGS, rattled central Chile.",
		"Chile's navy quickly ruled out a tsunami. Officials said about 120,000 households in the Valparaiso region lost electricity, but no deaths were reported, and some people living near the shore spent the rest of the night on higher ground.",
		"Shop owners in Valparaiso's old town swept up broken glass in the morning, and the port said operations would resume once cranes had been inspected.",
	}, 49 * time.Hour}
	chileMetro = report{"chile-tremor-power", "Chile tremor leaves 120,000 without power, no tsunami threat", []string{
		"Electricity was being restored on Tuesday to some 120,000 homes around Valparaiso after a 6.8-magnitude tremor off central Chile, the country's disaster agency SENAPRED said.",
		"The USGS located the quake 48 km west of Valparaiso at a depth of 31 km. Chile's navy said there was no tsunami threat, and no fatalities had been reported by mid-morning in Santiago or along the coast.",
		"Schools in the Valparaiso region stayed closed for the day while engineers checked buildings for cracks.",
	}, 47 * time.Hour}
	peruWire = report{"peru-quake", "Magnitude 5.9 earthquake hits southern Peru", []string{
		"A magnitude 5.9 earthquake struck southern Peru on Thursday afternoon, damaging old adobe houses in the Arequipa region, Peru's geophysical institute said.",
		"The quake was centred 20 kilometres south of the town of Chala at a depth of 45 kilometres. Regional authorities in Arequipa said two people were injured by falling walls and a landslide blocked the Pan-American Highway for several hours.",
	}, 3 * time.Hour}
	peruDaily = report{"arequipa-adobe", "Adobe homes crack in Arequipa after Peru quake near Chala", []string{
		"Families in the Arequipa region of southern Peru spent Thursday night outdoors after a 5.9-magnitude quake centred near Chala cracked dozens of adobe homes, Peru's geophysical institute IGP reported.",
		"Two people were hurt by collapsing walls, regional officials in Arequipa said, and a landslide closed a stretch of the Pan-American Highway near Chala until crews cleared it in the evening.",
	}, 2 * time.Hour}
)

// storyOutlets serves the outlets' feeds: an archive of other news (the
// labelled story set's original reports, quakes left out) that gives the
// workspace its document frequencies, and the quake reports.
func storyOutlets(t *testing.T) *httptest.Server {
	t.Helper()
	set, err := storyfeeds.Load("../../analysis/stories/testdata/storyset.json")
	if err != nil {
		t.Fatal(err)
	}
	var archive []report
	for _, a := range set {
		if a.Kind == "original" && !strings.HasPrefix(a.Event, "quake") {
			archive = append(archive, report{a.ID, a.Title, strings.Split(a.Markdown, "\n\n"), 60*time.Hour + time.Duration(len(archive))*time.Minute})
		}
	}
	copyOfWire := chileWire
	copyOfWire.slug, copyOfWire.title = "quake-chile-wire", "Strong quake off Chile, no tsunami"
	copyOfWire.paras = append([]string{"By Coastal Herald staff and agencies"}, chileWire.paras...)
	feeds := map[string][]report{
		"/archive.xml": archive,
		"/wire.xml":    {chileWire, peruWire},
		"/daily.xml":   {chileDaily, peruDaily},
		"/metro.xml":   {chileMetro},
		"/herald.xml":  {copyOfWire},
	}
	now := time.Now()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		items, ok := feeds[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/rss+xml")
		var b strings.Builder
		fmt.Fprintf(&b, `<?xml version="1.0"?><rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>%s</title><link>http://%s/</link>`,
			strings.TrimSuffix(r.URL.Path[1:], ".xml"), r.Host)
		for _, it := range items {
			var body strings.Builder
			for _, p := range it.paras {
				body.WriteString("<p>" + html.EscapeString(p) + "</p>")
			}
			fmt.Fprintf(&b, `<item><title>%s</title><link>http://%s%s/%s</link><guid>%s%s</guid><pubDate>%s</pubDate><content:encoded><![CDATA[%s]]></content:encoded></item>`,
				html.EscapeString(it.title), r.Host, strings.TrimSuffix(r.URL.Path, ".xml"), it.slug, r.URL.Path, it.slug,
				now.Add(-it.ago).UTC().Format(time.RFC1123Z), body.String())
		}
		b.WriteString(`</channel></rss>`)
		w.Write([]byte(b.String()))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Stories through the real binary on both databases: the independently
// written reports of the Chile earthquake from three outlets, and a
// syndicated copy of one from a fourth, are one story; the Peru
// earthquake's two reports are another; each joining article stores why
// (the story, the closest article, the score, the shared terms); the
// digest cites four reports for the Chile story and two for Peru's.
func TestStoriesGroupIndependentReportsEndToEnd(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			srv := storyOutlets(t)
			dir := t.TempDir()
			env := quietEnv(testdb.URL(t, dialect), "FEEDPOLLER_POLLER_FETCH_ARTICLES=false")
			run := func(args ...string) string { t.Helper(); return mustCLI(t, dir, env, args...) }
			ws := strings.TrimSpace(run("workspaces", "add", "--name", "quakes", "--quiet"))
			// One outlet at a time, as polls come in.
			for _, feed := range []string{"/archive.xml", "/wire.xml", "/daily.xml", "/metro.xml", "/herald.xml"} {
				id := strings.TrimSpace(run("sources", "add", "--workspace", ws, "--url", srv.URL+feed, "--quiet"))
				if out := run("poll", "--source", id); !strings.Contains(out, " ok http=200") {
					t.Fatalf("poll %s: %s", feed, out)
				}
			}
			story := func(slug string) string {
				t.Helper()
				out := run("sql", "SELECT story_id FROM feed_articles WHERE external_url LIKE '%/"+slug+"'")
				f := strings.Fields(out)
				if len(f) != 2 {
					t.Fatalf("story of %s: %q", slug, out)
				}
				return f[1]
			}
			chile := story("chile-quake")
			for _, slug := range []string{"valparaiso-jolted", "chile-tremor-power", "quake-chile-wire"} {
				if got := story(slug); got != chile {
					t.Errorf("%s is in story %s, the Chile wire report in %s", slug, got, chile)
				}
			}
			peru := story("peru-quake")
			if got := story("arequipa-adobe"); got != peru || peru == chile {
				t.Errorf("Peru reports in stories %s and %s, Chile in %s: want the Peru reports together, apart from Chile", peru, got, chile)
			}
			if out := run("sql", "SELECT article_count FROM stories WHERE id = "+chile); strings.Fields(out)[1] != "4" {
				t.Errorf("Chile story's article_count: %s, want 4", out)
			}
			reason := run("sql", "SELECT story_reason FROM feed_articles WHERE external_url LIKE '%/valparaiso-jolted'")
			if !strings.Contains(reason, "joined story "+chile+": similar to its articles (closest article ") ||
				!strings.Contains(reason, "score 0.") || !strings.Contains(reason, `"valparaiso"`) {
				t.Errorf("story_reason of an independent report: %s", reason)
			}
			if r := run("sql", "SELECT story_reason FROM feed_articles WHERE external_url LIKE '%/peru-quake'"); strings.Contains(r, "joined") {
				t.Errorf("the first Peru report started its story, yet has the reason %s", r)
			}
			var d struct {
				Stories []struct {
					ID      int64 `json:"id"`
					Sources []struct {
						URL string `json:"url"`
					} `json:"sources"`
				} `json:"stories"`
			}
			if err := json.Unmarshal([]byte(run("digest", "--workspace", ws, "--since", "3d", "--format", "json")), &d); err != nil {
				t.Fatal(err)
			}
			reports := map[string]int{}
			for _, s := range d.Stories {
				reports[fmt.Sprint(s.ID)] = len(s.Sources)
			}
			if reports[chile] != 4 || reports[peru] != 2 {
				t.Errorf("digest: the Chile story cites %d reports, the Peru story %d; want 4 and 2", reports[chile], reports[peru])
			}
		})
	}
}
