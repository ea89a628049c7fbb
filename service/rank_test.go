package service_test

import (
	"context"
	"testing"

	"github.com/feedpoller/feedpoller/analysis/rank"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
)

// TestSourceTiersAndDecayClasses: a new source takes the configured
// domain rules' tier unless one is given (then it is manual); an update
// sets it by hand or gives it back to the rules (0), sets or clears the
// source's decay class; bad values name their field.
func TestSourceTiersAndDecayClasses(t *testing.T) {
	rules, err := rank.NewClassifier([]rank.Rule{{Domain: "*.example.org", Tier: model.TierAcademic}})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, func(o *service.Options) { o.Reliability = rules })
	ctx := context.Background()
	ruled, err := f.svc.CreateSource(ctx, f.wsID, service.SourceSpec{URL: "https://news.example.org/feed"})
	if err != nil {
		t.Fatal(err)
	}
	if s := ruled.Source; s.ReliabilityTier != 2 || s.ReliabilityTierManual || s.DecayClass != nil {
		t.Fatalf("source %+v: want tier 2 from the rules, not manual, the workspace's decay class", s.SourceRank)
	}
	set, err := f.svc.CreateSource(ctx, f.wsID, service.SourceSpec{URL: "https://blog.example.com/feed",
		ReliabilityTier: ptr(3), DecayClass: ptr("fast")})
	if err != nil {
		t.Fatal(err)
	}
	if s := set.Source; s.ReliabilityTier != 3 || !s.ReliabilityTierManual || s.DecayClass == nil || *s.DecayClass != "fast" {
		t.Fatalf("source %+v: want tier 3 by hand, fast", s.SourceRank)
	}
	back, err := f.svc.UpdateSource(ctx, f.wsID, set.Source.ID, service.SourceChange{ReliabilityTier: ptr(0), DecayClass: ptr("")})
	if err != nil {
		t.Fatal(err)
	}
	if back.ReliabilityTier != 5 || back.ReliabilityTierManual || back.DecayClass != nil {
		t.Fatalf("after tier 0 and decay class \"\": %+v; want the rules' tier 5 and the workspace's class", back.SourceRank)
	}
	hand, err := f.svc.UpdateSource(ctx, f.wsID, ruled.Source.ID, service.SourceChange{ReliabilityTier: ptr(1)})
	if err != nil || hand.ReliabilityTier != 1 || !hand.ReliabilityTierManual {
		t.Fatalf("tier 1 by hand: %+v, %v", hand, err)
	}
	for _, tc := range []struct {
		name  string
		err   error
		field string
	}{
		{"tier 6 at create", ignore(f.svc.CreateSource(ctx, f.wsID, service.SourceSpec{URL: "https://x.example/f", ReliabilityTier: ptr(6)})), "reliability_tier"},
		{"tier 0 at create", ignore(f.svc.CreateSource(ctx, f.wsID, service.SourceSpec{URL: "https://x.example/f", ReliabilityTier: ptr(0)})), "reliability_tier"},
		{"decay class at create", ignore(f.svc.CreateSource(ctx, f.wsID, service.SourceSpec{URL: "https://x.example/f", DecayClass: ptr("slow")})), "decay_class"},
		{"tier -1 at update", ignore(f.svc.UpdateSource(ctx, f.wsID, ruled.Source.ID, service.SourceChange{ReliabilityTier: ptr(-1)})), "reliability_tier"},
		{"decay class at update", ignore(f.svc.UpdateSource(ctx, f.wsID, ruled.Source.ID, service.SourceChange{DecayClass: ptr("Fast")})), "decay_class"},
	} {
		t.Run(tc.name, func(t *testing.T) { _ = wantKind(t, tc.err, service.ErrInvalid, tc.field) })
	}
}

// TestWorkspaceDecayClass: set at creation, changed, cleared back to
// moderate; a bad one names decay_class.
func TestWorkspaceDecayClass(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ws, err := f.svc.CreateWorkspace(ctx, service.WorkspaceSpec{Name: "news", DecayClass: ptr("fast")})
	if err != nil || ws.DecayClass != "fast" {
		t.Fatalf("created %+v, %v; want fast", ws, err)
	}
	ws, err = f.svc.UpdateWorkspace(ctx, ws.ID, service.WorkspaceChange{DecayClass: ptr("stable")})
	if err != nil || ws.DecayClass != "stable" {
		t.Fatalf("updated %+v, %v; want stable", ws, err)
	}
	ws, err = f.svc.UpdateWorkspace(ctx, ws.ID, service.WorkspaceChange{DecayClass: ptr("")})
	if err != nil || ws.DecayClass != "moderate" {
		t.Fatalf("cleared %+v, %v; want moderate", ws, err)
	}
	_ = wantKind(t, ignore(f.svc.UpdateWorkspace(ctx, ws.ID, service.WorkspaceChange{DecayClass: ptr("weekly")})), service.ErrInvalid, "decay_class")
	_ = wantKind(t, ignore(f.svc.CreateWorkspace(ctx, service.WorkspaceSpec{Name: "x", DecayClass: ptr("weekly")})), service.ErrInvalid, "decay_class")
}
