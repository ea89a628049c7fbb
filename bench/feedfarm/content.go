package feedfarm

import (
	"bytes"
	"strconv"
	"time"
)

// rng is splitmix64: allocation-free and fully determined by its state, which
// is all synthetic content needs.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a number in [0, n); the modulo bias is irrelevant here.
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// between returns a number in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// hash4 mixes up to four numbers into one well-spread value.
func hash4(a, b, c, d uint64) uint64 {
	r := rng{s: a}
	r.s ^= r.next() + b
	r.s ^= r.next() + c
	r.s ^= r.next() + d
	return r.next()
}

// Salts keep the random streams for different purposes apart.
const (
	saltMeta uint64 = iota + 1
	saltBody
	saltFeed
	saltChange
	saltETag
)

// words is a read-only vocabulary for titles and prose.
var words = [...]string{
	"network", "policy", "market", "energy", "research", "update", "report", "climate",
	"software", "release", "security", "budget", "council", "science", "health", "transport",
	"water", "design", "quarter", "growth", "review", "study", "launch", "data", "model",
	"city", "region", "team", "project", "system", "service", "platform", "supply", "chain",
	"price", "index", "rate", "survey", "result", "plan", "strategy", "committee", "agency",
	"board", "partner", "customer", "product", "feature", "version", "storage", "cloud",
	"battery", "solar", "wind", "grid", "harbour", "river", "forest", "school", "hospital",
	"library", "museum", "festival", "league", "season", "match", "record", "talks", "deal",
	"merger", "court", "ruling", "vote", "election", "campaign", "debate", "reform", "tax",
	"trade", "export", "import", "factory", "worker", "union", "contract", "pension", "housing",
	"rent", "loan", "bank", "fund", "investor", "startup", "chip", "robot", "vaccine", "trial",
	"patient", "doctor", "nurse", "farm", "harvest", "drought", "storm", "flood", "bridge",
	"tunnel", "railway", "airport", "flight", "port", "shipping", "fuel", "carbon", "emission",
	"target", "goal", "limit", "standard", "audit", "inquiry", "panel", "expert", "analyst",
	"forecast", "estimate", "figure", "share", "profit", "loss", "revenue", "cost", "saving",
	"quickly", "slowly", "again", "finally", "early", "late", "today", "new", "local", "national",
	"global", "public", "private", "major", "minor", "first", "second", "final", "annual",
	"is", "was", "will", "could", "should", "after", "before", "during", "while", "with",
	"the", "a", "of", "in", "on", "for", "to", "and", "from", "by", "about", "against",
}

var authors = [...]string{
	"Ada Lind", "Bo Sørensen", "Chidi Okafor", "Dana Ruiz", "Elif Yilmaz", "Farah Haddad",
	"Goran Petrovic", "Hana Sato", "Ines Moreau", "Jonas Weber", "Kiri Tane", "Lena Novak",
}

var categories = [...]string{
	"Politics", "Business", "Technology", "Science", "Health", "Energy", "Sport", "Culture",
}

// defaultEpoch anchors all synthetic dates well in the past, so that even a
// feed that changed on every request of a long benchmark does not reach the
// future; feeds start within defaultDateSpread of it.
var defaultEpoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

const defaultDateSpread = 30 * 24 * time.Hour

// item is the metadata of one synthetic item; its body is written on demand.
type item struct {
	feed, k   int
	title     string
	author    string
	category  string
	summary   string
	published time.Time
}

// feedStart and feedStep place a feed's items on the time line: item k of feed
// n is published at feedStart(n) + k × feedStep(n).
func (f *Farm) feedStart(n int) time.Time {
	h := hash4(f.seed, uint64(n), saltFeed, 0)
	spread := max(1, uint64(f.opts.DateSpread/time.Second))
	return f.opts.Epoch.Add(time.Duration(h%spread) * time.Second)
}

func (f *Farm) feedStep(n int) time.Duration {
	h := hash4(f.seed, uint64(n), saltFeed, 1)
	return time.Duration(60+h%540) * time.Second
}

func (f *Farm) published(n, k int) time.Time {
	return f.feedStart(n).Add(time.Duration(k) * f.feedStep(n))
}

// feedTitle names feed n.
func (f *Farm) feedTitle(n int) string {
	r := rng{s: hash4(f.seed, uint64(n), saltFeed, 2)}
	return "Farm feed " + strconv.Itoa(n) + ": " + capitalise(words[r.intn(len(words))]) + " " + capitalise(words[r.intn(len(words))])
}

// itemMeta derives everything but the body of item k of feed n.
func (f *Farm) itemMeta(n, k int) item {
	p := f.prose(n, k, saltMeta)
	title := string(p.appendTitle(nil))
	return item{
		feed:      n,
		k:         k,
		title:     title,
		author:    authors[p.r.intn(len(authors))],
		category:  categories[p.r.intn(len(categories))],
		summary:   p.sentence(),
		published: f.published(n, k),
	}
}

// itemPath is the farm-relative address of an item's article page.
func itemPath(n, k int) string {
	return "/item/" + strconv.Itoa(n) + "/" + strconv.Itoa(k)
}

// writeBody writes the HTML body of item k of feed n: a paragraph, a
// heading, a paragraph with links, a list, then paragraphs until the body is
// at least f.opts.BodyBytes long. base is the farm's scheme://host and is
// written HTML-escaped, so a strange Host header cannot break the markup.
func (f *Farm) writeBody(buf *bytes.Buffer, base string, n, k int) {
	p := f.prose(n, k, saltBody)
	start := buf.Len()
	size := f.opts.BodyBytes

	buf.WriteString("<p>")
	p.lead = true
	p.writeSentences(buf, 2)
	p.lead = false
	buf.WriteString("</p>\n<h2>")
	p.writeWords(buf, p.r.between(3, 6))
	buf.WriteString("</h2>\n<p>")
	p.writeSentence(buf)
	buf.WriteString(` See <a href="`)
	escapeTo(buf, base)
	prev := k - 1
	if prev < 0 {
		prev = k
	}
	buf.WriteString(itemPath(n, prev))
	buf.WriteString(`">the earlier report</a> and <a href="`)
	escapeTo(buf, base)
	buf.WriteString(itemPath((n+1)%f.opts.Feeds, k))
	buf.WriteString(`">a related story</a>. `)
	p.writeSentences(buf, 1)
	buf.WriteString("</p>\n<ul>\n")
	nl := p.r.between(3, 5)
	for i := 0; i < nl; i++ {
		buf.WriteString("<li>")
		p.writeWords(buf, 3)
		buf.WriteString("</li>\n")
	}
	buf.WriteString("</ul>\n")
	for buf.Len()-start < size {
		buf.WriteString("<p>")
		for s := 0; s < 5 && buf.Len()-start < size; s++ {
			if s > 0 {
				buf.WriteByte(' ')
			}
			p.writeSentence(buf)
		}
		buf.WriteString("</p>\n")
	}
}

// capitalise upper-cases the first letter of an ASCII lower-case word.
func capitalise(w string) string {
	if w == "" || w[0] < 'a' || w[0] > 'z' {
		return w
	}
	return string(w[0]-('a'-'A')) + w[1:]
}

// escapeTo writes s escaped for XML and HTML text and attribute values;
// s is a string, or the bytes of an HTML body embedded in an Atom feed.
func escapeTo[T string | []byte](buf *bytes.Buffer, s T) {
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		default:
			continue
		}
		buf.Write([]byte(s[last:i]))
		buf.WriteString(esc)
		last = i + 1
	}
	buf.Write([]byte(s[last:]))
}
