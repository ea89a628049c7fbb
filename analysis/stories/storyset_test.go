package stories

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// The labelled story set: testdata/events.yaml holds the hand-written
// reports of each event (the wire's full text, another newsroom's light
// rewrite, alternative headlines, a later update); testdata/outlets.yaml
// the sites that carry them with their furniture. buildStorySet turns
// them into the articles a workspace would store, the way feeds carry
// news: syndicated copies with each site's header and footer, copies
// under edited headlines, truncated feed excerpts, the rewrite, an updated
// copy. testdata/storyset.json is the result, kept in the repository so
// that other stages (and SQL users) can load the same set; -update
// rewrites it.

var updateStorySet = flag.Bool("update", false, "rewrite testdata/storyset.json from events.yaml and outlets.yaml")

type setOutlet struct {
	Name     string `yaml:"name"`
	Domain   string `yaml:"domain"`
	Header   string `yaml:"header"`
	Footer   string `yaml:"footer"`
	Truncate string `yaml:"truncate"`
}

type setEvent struct {
	ID        string    `yaml:"id"`
	Family    string    `yaml:"family"`
	Date      time.Time `yaml:"date"`
	Headlines []string  `yaml:"headlines"`
	Body      string    `yaml:"body"`
	Rewrite   struct {
		Headline string `yaml:"headline"`
		Body     string `yaml:"body"`
	} `yaml:"rewrite"`
	Update string `yaml:"update"`
}

// setArticle is one labelled article of the story set.
type setArticle struct {
	ID          string    `json:"id"`
	Event       string    `json:"event"`
	Family      string    `json:"family"`
	Kind        string    `json:"kind"`
	Outlet      string    `json:"outlet"`
	URL         string    `json:"url"`
	PublishedAt time.Time `json:"published_at"`
	Title       string    `json:"title"`
	Markdown    string    `json:"markdown"`
}

// Kinds of article in the set, by how it differs from the wire's text.
const (
	kindOriginal       = "original"        // the wire's full text
	kindSyndicated     = "syndicated"      // the same text in another site's furniture
	kindHeadline       = "headline"        // syndicated under an edited headline
	kindTruncated      = "truncated"       // a feed excerpt: first paragraph(s) or ~55 words
	kindRewrite        = "rewrite"         // another newsroom's light rewrite
	kindUpdate         = "update"          // syndicated with a later paragraph on top
	kindRewriteExcerpt = "rewrite-excerpt" // a feed excerpt of the rewrite
)

func loadYAML(t testing.TB, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func buildStorySet(t testing.TB) []setArticle {
	t.Helper()
	var outlets []setOutlet
	var events []setEvent
	loadYAML(t, "outlets.yaml", &outlets)
	loadYAML(t, "events.yaml", &events)
	byName := map[string]setOutlet{}
	for _, o := range outlets {
		byName[o.Name] = o
	}
	family := map[string][]setEvent{}
	for _, e := range events {
		family[e.Family] = append(family[e.Family], e)
	}
	var out []setArticle
	for i, e := range events {
		if len(e.Headlines) != 3 || e.Body == "" || e.Rewrite.Body == "" {
			t.Fatalf("event %s: needs 3 headlines, a body and a rewrite", e.ID)
		}
		var related []string
		for _, o := range family[e.Family] {
			if o.ID != e.ID {
				related = append(related, "- "+o.Headlines[0])
			}
		}
		if len(related) == 0 {
			related = []string{"- More news from around the world"}
		}
		skew := time.Duration(i%5) * 7 * time.Minute
		add := func(kind, outlet, title, text string, after time.Duration) {
			o, ok := byName[outlet]
			if !ok {
				t.Fatalf("unknown outlet %q", outlet)
			}
			at := e.Date.Add(after + skew)
			out = append(out, setArticle{
				ID:          e.ID + "/" + kind,
				Event:       e.ID,
				Family:      e.Family,
				Kind:        kind,
				Outlet:      o.Name,
				URL:         fmt.Sprintf("https://%s/%s/%s", o.Domain, at.Format("2006/01/02"), slug(title)),
				PublishedAt: at,
				Title:       title,
				Markdown:    text,
			})
		}
		wrap := func(outlet, title, body string, withTitle bool, at time.Duration) string {
			o := byName[outlet]
			date := e.Date.Add(at + skew).Format("January 2, 2006 3:04 PM MST")
			var parts []string
			if withTitle {
				parts = append(parts, "# "+title)
			}
			if o.Header != "" {
				parts = append(parts, strings.ReplaceAll(strings.TrimSpace(o.Header), "{date}", date))
			}
			parts = append(parts, strings.TrimSpace(body))
			if o.Footer != "" {
				f := strings.ReplaceAll(strings.TrimSpace(o.Footer), "{date}", date)
				parts = append(parts, strings.ReplaceAll(f, "{related}", strings.Join(related, "\n")))
			}
			return strings.Join(parts, "\n\n")
		}
		pick := func(names ...string) string { return names[i%len(names)] }
		head := e.Headlines

		add(kindOriginal, "Newswire", head[0], wrap("Newswire", head[0], e.Body, false, 0), 0)
		syn := pick("The Daily Ledger", "Coastal Herald", "World Report Today")
		add(kindSyndicated, syn, head[0], wrap(syn, head[0], e.Body, false, 40*time.Minute), 40*time.Minute)
		hl := pick("Metro Post", "KXRT News", "Pacific Observer")
		add(kindHeadline, hl, head[1], wrap(hl, head[1], e.Body, hl == "Pacific Observer", 85*time.Minute), 85*time.Minute)
		tr := pick("The Morning Brief", "KXRT News", "Pacific Observer")
		add(kindTruncated, tr, head[2], excerpt(e.Body, i%2 == 0, byName[tr].Truncate), 130*time.Minute)
		rw := pick("Tech Dispatch", "Metro Post", "Coastal Herald", "Pacific Observer")
		add(kindRewrite, rw, e.Rewrite.Headline, wrap(rw, e.Rewrite.Headline, e.Rewrite.Body, rw == "Tech Dispatch", 3*time.Hour), 3*time.Hour)
		if e.Update != "" {
			up := pick("The Daily Ledger", "World Report Today")
			body := e.Update + "\n\n" + e.Body
			add(kindUpdate, up, head[1], wrap(up, head[1], body, false, 6*time.Hour), 6*time.Hour)
		}
		if i%3 == 0 {
			add(kindRewriteExcerpt, "The Morning Brief", e.Rewrite.Headline,
				excerpt(e.Rewrite.Body, true, byName["The Morning Brief"].Truncate), 4*time.Hour)
		}
	}
	return out
}

// excerpt is what a feed carries of an article: its first paragraph (the
// first two when the first is short), or its first 55 words cut mid-
// sentence as WordPress excerpts are, then the site's "read more".
func excerpt(body string, byParagraph bool, more string) string {
	if more == "" {
		more = "…"
	}
	paras := strings.Split(strings.TrimSpace(body), "\n\n")
	if byParagraph {
		text := paras[0]
		if len(strings.Fields(text)) < 40 && len(paras) > 1 {
			text += "\n\n" + paras[1]
		}
		return text + "\n\n" + more
	}
	words := strings.Fields(strings.Join(paras, " "))
	if len(words) > 55 {
		words = words[:55]
	}
	return strings.Join(words, " ") + " " + more
}

func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

const storySetFile = "testdata/storyset.json"

func encodeStorySet(t testing.TB, arts []setArticle) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		About    string       `json:"about"`
		Articles []setArticle `json:"articles"`
	}{
		About:    "Labelled story set: articles with the event they report (event) and how they differ from the wire's text (kind). Generated from events.yaml and outlets.yaml; see stories/storyset_test.go.",
		Articles: arts,
	}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// loadStorySet reads testdata/storyset.json.
func loadStorySet(t testing.TB) []setArticle {
	t.Helper()
	b, err := os.ReadFile(storySetFile)
	if err != nil {
		t.Fatal(err)
	}
	var set struct {
		Articles []setArticle `json:"articles"`
	}
	if err := json.Unmarshal(b, &set); err != nil {
		t.Fatal(err)
	}
	return set.Articles
}

// The stored set must be what the sources generate, so neither drifts.
func TestStorySetFileIsCurrent(t *testing.T) {
	want := encodeStorySet(t, buildStorySet(t))
	if *updateStorySet {
		if err := os.WriteFile(storySetFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(storySetFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is out of date: run go test ./stories -run TestStorySetFileIsCurrent -update", storySetFile)
	}
}
