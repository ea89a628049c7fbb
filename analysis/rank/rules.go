package rank

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/feedpoller/feedpoller/model"
)

// Rule gives a tier to the sources of a domain. Domain "example.org"
// matches example.org and every subdomain of it; "*.gov" matches only
// hosts under gov (any name ending in ".gov").
type Rule struct {
	Domain string     `yaml:"domain" json:"domain"`
	Tier   model.Tier `yaml:"tier" json:"tier"`
}

// DefaultRules are the shipped rules: the obvious cases only, every
// other host is TierGeneral. A deployment replaces them in config.yaml.
func DefaultRules() []Rule {
	rules := []Rule{}
	add := func(t model.Tier, domains ...string) {
		for _, d := range domains {
			rules = append(rules, Rule{Domain: d, Tier: t})
		}
	}
	add(model.TierOfficial,
		// governments and intergovernmental bodies
		"*.gov", "*.mil", "*.gov.uk", "*.gouv.fr", "*.gc.ca", "*.gov.au", "*.int", "europa.eu", "un.org",
		// standards bodies and registries
		"w3.org", "whatwg.org", "ietf.org", "rfc-editor.org", "iana.org", "iso.org", "ecma-international.org",
		"unicode.org", "cve.org",
		// official documentation of widely used platforms
		"go.dev", "python.org", "rust-lang.org", "kubernetes.io", "postgresql.org", "developer.mozilla.org")
	add(model.TierAcademic,
		"arxiv.org", "biorxiv.org", "medrxiv.org", "*.edu", "*.ac.uk", "*.ac.jp", "*.edu.au",
		"nature.com", "science.org", "acm.org", "ieee.org", "springer.com", "sciencedirect.com",
		"plos.org", "pnas.org", "openreview.net", "aclanthology.org", "ssrn.com")
	add(model.TierAuthoritative,
		"reuters.com", "apnews.com", "bbc.co.uk", "bbc.com", "ft.com", "economist.com", "nytimes.com",
		"theguardian.com", "bloomberg.com", "lwn.net", "arstechnica.com")
	add(model.TierCommunity,
		"news.ycombinator.com", "reddit.com", "stackoverflow.com", "*.stackexchange.com", "medium.com",
		"dev.to", "lobste.rs", "substack.com", "mastodon.social", "x.com", "twitter.com")
	return rules
}

// ErrRule reports a rule that cannot be used.
var ErrRule = errors.New("invalid reliability rule")

// Classifier assigns tiers from rules: the rule with the longest matching
// domain wins (a rule for blog.example.org beats one for example.org);
// for one domain, "example.org" decides the host example.org and
// "*.example.org" its subdomains; otherwise the rule listed first.
type Classifier struct {
	rules []rule
}

type rule struct {
	suffix string // ".gov" or ".example.org"
	exact  string // "example.org", or "" for a wildcard
	tier   model.Tier
}

// NewClassifier checks the rules and returns their classifier.
func NewClassifier(rules []Rule) (*Classifier, error) {
	c := &Classifier{}
	for i, r := range rules {
		d := strings.ToLower(strings.TrimSpace(r.Domain))
		if !r.Tier.Valid() {
			return nil, fmt.Errorf("%w %d (%q): %w, got %d", ErrRule, i+1, r.Domain, model.ErrTier, r.Tier)
		}
		wild := strings.HasPrefix(d, "*.")
		name := strings.TrimPrefix(d, "*.")
		if !validDomain(name) {
			return nil, fmt.Errorf("%w %d: %q is not a domain (example.org or *.example.org)", ErrRule, i+1, r.Domain)
		}
		nr := rule{suffix: "." + name, tier: r.Tier}
		if !wild {
			nr.exact = name
		}
		c.rules = append(c.rules, nr)
	}
	return c, nil
}

func validDomain(d string) bool {
	if d == "" || len(d) > 253 || strings.HasPrefix(d, ".") || strings.HasSuffix(d, ".") || strings.Contains(d, "..") {
		return false
	}
	for _, c := range d {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// Tier returns the tier of a source URL (or bare host) by the rules,
// TierGeneral when none matches or the URL has no host.
func (c *Classifier) Tier(sourceURL string) model.Tier {
	host := Host(sourceURL)
	if host == "" {
		return model.TierGeneral
	}
	best, bestRank := model.TierGeneral, -1
	for _, r := range c.rules {
		// Longer domains first; for one domain an exact host match, then
		// a wildcard, then a domain rule reaching a subdomain.
		rank := -1
		switch {
		case host == r.exact:
			rank = 4 * len(r.suffix)
		case strings.HasSuffix(host, r.suffix) && r.exact == "":
			rank = 4*len(r.suffix) - 1
		case strings.HasSuffix(host, r.suffix):
			rank = 4*len(r.suffix) - 2
		}
		if rank > bestRank {
			best, bestRank = r.tier, rank
		}
	}
	return best
}

// Effective is a source's tier: its own when set (and valid), else the
// rules' tier for its URL.
func (c *Classifier) Effective(own *model.Tier, sourceURL string) model.Tier {
	if own != nil && own.Valid() {
		return *own
	}
	return c.Tier(sourceURL)
}

// Host returns the lower-cased host of a URL or bare host name, without
// port or trailing dot.
func Host(s string) string {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "://") {
		s = "//" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
}
