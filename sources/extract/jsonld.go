package extract

import (
	"encoding/json"
	"strings"

	"golang.org/x/net/html"
)

// articleTypes are the schema.org types whose fields describe the article
// itself, in order of preference.
var articleTypes = map[string]int{
	"newsarticle": 1, "reportagenewsarticle": 1, "analysisnewsarticle": 1, "opinionnewsarticle": 1,
	"article": 2, "blogposting": 2, "techarticle": 2, "scholarlyarticle": 2, "report": 2,
	"socialmediaposting": 3, "liveblogposting": 3, "review": 3, "recipe": 3, "howto": 3,
	"webpage": 5, "itempage": 5, "aboutpage": 6, "collectionpage": 7,
}

// jsonLDMetadata reads <script type="application/ld+json"> blocks.
func jsonLDMetadata(doc *html.Node) Metadata {
	var nodes []map[string]any
	walk(doc, func(n *html.Node) bool {
		if n.Type != html.ElementNode || n.Data != "script" {
			return true
		}
		if !strings.Contains(strings.ToLower(attr(n, "type")), "ld+json") {
			return false
		}
		var raw strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			raw.WriteString(c.Data)
		}
		var v any
		if err := json.Unmarshal([]byte(cleanJSONLD(raw.String())), &v); err != nil {
			return false
		}
		collectJSONLD(v, &nodes, 0)
		return false
	})
	if len(nodes) == 0 {
		return Metadata{}
	}
	byID := make(map[string]map[string]any)
	for _, n := range nodes {
		if id, ok := n["@id"].(string); ok && id != "" {
			if _, dup := byID[id]; !dup {
				byID[id] = n
			}
		}
	}
	// The most article-like node wins; WebPage and friends fill the gaps.
	var best []map[string]any
	for rank := 1; rank <= 7; rank++ {
		for _, n := range nodes {
			if typeRank(n) == rank {
				best = append(best, n)
			}
		}
	}
	var m Metadata
	for _, n := range best {
		m.fillFrom(jsonLDArticle(n, byID))
	}
	for _, n := range nodes {
		if hasType(n, "website") || hasType(n, "organization") || hasType(n, "newsmediaorganization") {
			if m.SiteName == "" {
				m.SiteName = jsonString(n["name"], byID)
			}
		}
	}
	return m
}

// cleanJSONLD strips wrappers that some CMSs leave around the JSON.
func cleanJSONLD(s string) string {
	s = strings.TrimSpace(s)
	for _, p := range []string{"<!--", "//<![CDATA[", "<![CDATA["} {
		s = strings.TrimPrefix(s, p)
	}
	for _, p := range []string{"-->", "//]]>", "]]>"} {
		s = strings.TrimSuffix(s, p)
	}
	return strings.TrimSpace(s)
}

// collectJSONLD flattens arrays and @graph containers into a list of nodes.
func collectJSONLD(v any, out *[]map[string]any, depth int) {
	if depth > 8 {
		return
	}
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			collectJSONLD(e, out, depth+1)
		}
	case map[string]any:
		if g, ok := t["@graph"]; ok {
			collectJSONLD(g, out, depth+1)
		}
		if _, ok := t["@type"]; ok {
			*out = append(*out, t)
		}
		// An article nested as the mainEntity of a WebPage is still the article.
		if me, ok := t["mainEntity"].(map[string]any); ok {
			collectJSONLD(me, out, depth+1)
		}
	}
}

func types(n map[string]any) []string {
	switch t := n["@type"].(type) {
	case string:
		return []string{strings.ToLower(t)}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, strings.ToLower(s))
			}
		}
		return out
	}
	return nil
}

func hasType(n map[string]any, want string) bool {
	for _, t := range types(n) {
		if strings.TrimPrefix(strings.TrimPrefix(t, "http://schema.org/"), "https://schema.org/") == want {
			return true
		}
	}
	return false
}

// typeRank is the preference of a node (lower is better), 0 for nodes that
// do not describe the page.
func typeRank(n map[string]any) int {
	best := 0
	for _, t := range types(n) {
		t = strings.TrimPrefix(strings.TrimPrefix(t, "http://schema.org/"), "https://schema.org/")
		if r, ok := articleTypes[t]; ok && (best == 0 || r < best) {
			best = r
		}
	}
	return best
}

func jsonLDArticle(n map[string]any, byID map[string]map[string]any) Metadata {
	m := Metadata{
		Title:       firstNonEmpty(jsonString(n["headline"], byID), jsonString(n["name"], byID)),
		Author:      jsonNames(n["author"], byID),
		Description: jsonString(n["description"], byID),
		Language:    jsonString(n["inLanguage"], byID),
		Image:       jsonURL(n["image"], byID),
		Published:   datePtr(firstNonEmpty(jsonString(n["datePublished"], byID), jsonString(n["dateCreated"], byID))),
		Modified:    datePtr(jsonString(n["dateModified"], byID)),
	}
	if m.Author == "" {
		m.Author = jsonNames(n["creator"], byID)
	}
	if m.Image == "" {
		m.Image = jsonURL(n["thumbnailUrl"], byID)
	}
	if typeRank(n) < 5 {
		m.CanonicalURL = firstNonEmpty(jsonURL(n["mainEntityOfPage"], byID), jsonString(n["url"], byID))
	}
	if p, ok := deref(n["publisher"], byID).(map[string]any); ok {
		m.SiteName = jsonString(p["name"], byID)
	}
	switch k := n["keywords"].(type) {
	case string:
		m.Tags = splitTags(k)
	case []any:
		for _, e := range k {
			if s, ok := e.(string); ok {
				m.Tags = append(m.Tags, splitTags(s)...)
			}
		}
	}
	return m
}

// deref replaces a {"@id": …} reference by the node it names, when known.
func deref(v any, byID map[string]map[string]any) any {
	if o, ok := v.(map[string]any); ok && len(o) <= 2 {
		if id, ok := o["@id"].(string); ok {
			if full, ok := byID[id]; ok {
				return full
			}
		}
	}
	return v
}

// jsonString reads a plain text value: a string, a number-free object with
// @value or name, or the first element of an array.
func jsonString(v any, byID map[string]map[string]any) string {
	switch t := deref(v, byID).(type) {
	case string:
		return html.UnescapeString(strings.TrimSpace(t))
	case map[string]any:
		if s, ok := t["@value"].(string); ok {
			return s
		}
		if s, ok := t["name"].(string); ok {
			return s
		}
	case []any:
		for _, e := range t {
			if s := jsonString(e, byID); s != "" {
				return s
			}
		}
	}
	return ""
}

// jsonURL reads a URL value: a string, an ImageObject/WebPage with url or
// @id, or the first of an array.
func jsonURL(v any, byID map[string]map[string]any) string {
	switch t := deref(v, byID).(type) {
	case string:
		return strings.TrimSpace(t)
	case map[string]any:
		for _, k := range []string{"url", "contentUrl", "@id"} {
			if s, ok := t[k].(string); ok && s != "" {
				return strings.TrimSpace(s)
			}
		}
	case []any:
		for _, e := range t {
			if s := jsonURL(e, byID); s != "" {
				return s
			}
		}
	}
	return ""
}

// jsonNames reads an author-like value (a string, a Person or Organization,
// or an array of either) as a comma-separated list of names.
func jsonNames(v any, byID map[string]map[string]any) string {
	var names []string
	var add func(any, int)
	add = func(v any, depth int) {
		if depth > 3 {
			return
		}
		switch t := deref(v, byID).(type) {
		case string:
			names = append(names, t)
		case map[string]any:
			if s, ok := t["name"].(string); ok {
				names = append(names, s)
			} else if s, ok := t["name"].([]any); ok {
				add(s, depth+1)
			}
		case []any:
			for _, e := range t {
				add(e, depth+1)
			}
		}
	}
	add(v, 0)
	names = dedupeStrings(names)
	var out []string
	for _, n := range names {
		if c := cleanAuthor(n); c != "" {
			out = append(out, c)
		}
	}
	return strings.Join(out, ", ")
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
