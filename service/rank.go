package service

import (
	"strings"

	"github.com/feedpoller/feedpoller/model"
)

// checkDecayClass names a decay class that is neither fast, moderate,
// stable nor "" (the default: the workspace's, or moderate for a
// workspace) in fields.
func checkDecayClass(class *string, fields map[string]string) {
	if class == nil || *class == "" {
		return
	}
	if _, err := model.ParseDecayClass(*class); err != nil {
		fields["decay_class"] = "must be one of: fast, moderate, stable"
	}
}

// sourceRank is a new source's tier (by hand, or the domain rules' for
// its URL) and decay class.
func (s *Service) sourceRank(url string, tier *int, class *string) model.SourceRank {
	r := model.SourceRank{ReliabilityTier: int(s.opts.Reliability.Tier(url))}
	if tier != nil {
		r.ReliabilityTier, r.ReliabilityTierManual = *tier, true
	}
	if class != nil && *class != "" {
		c := strings.TrimSpace(*class)
		r.DecayClass = &c
	}
	return r
}

// patchTier puts a tier change in p: 1–5 by hand, 0 back to the domain
// rules' tier for url.
func (s *Service) patchTier(p *model.SourcePatch, url string, tier *int) {
	if tier == nil {
		return
	}
	t, manual := *tier, true
	if t == 0 {
		t, manual = int(s.opts.Reliability.Tier(url)), false
	}
	p.Tier, p.TierManual = &t, &manual
}
