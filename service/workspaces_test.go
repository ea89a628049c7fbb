package service_test

import (
	"context"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
)

func TestCreateWorkspace(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	ws, err := f.svc.CreateWorkspace(ctx, service.WorkspaceSpec{Name: "  news  ", RelevanceProfile: &service.ProfileSpec{
		Keywords: []model.Keyword{{Term: "  go ", Weight: 2}}}})
	if err != nil {
		t.Fatal(err)
	}
	p := ws.Profile
	if ws.Name != "news" || p.Threshold != 0.35 || p.Keywords[0].Term != "go" || p.Exclusions == nil {
		t.Fatalf("stored %+v: want the name and terms trimmed, the options' threshold, lists present", ws)
	}
	if got, _ := f.svc.GetWorkspace(ctx, ws.ID); got.Profile.Keywords == nil || got.Profile.Exclusions == nil {
		t.Fatalf("read back %+v", got)
	}
	for _, c := range []struct {
		name  string
		spec  service.WorkspaceSpec
		field string
	}{
		{"blank name", service.WorkspaceSpec{Name: "  "}, "name"},
		{"long name", service.WorkspaceSpec{Name: strings.Repeat("n", 201)}, "name"},
		{"blank term", service.WorkspaceSpec{Name: "x", RelevanceProfile: &service.ProfileSpec{Keywords: []model.Keyword{{Term: " "}}}}, "relevance_profile.keywords[0].term"},
		{"heavy weight", service.WorkspaceSpec{Name: "x", RelevanceProfile: &service.ProfileSpec{Keywords: []model.Keyword{{Term: "a", Weight: 101}}}}, "relevance_profile.keywords[0].weight"},
		{"blank exclusion", service.WorkspaceSpec{Name: "x", RelevanceProfile: &service.ProfileSpec{Exclusions: []string{""}}}, "relevance_profile.exclusions[0]"},
		{"threshold", service.WorkspaceSpec{Name: "x", RelevanceProfile: &service.ProfileSpec{Threshold: ptr(1.5)}}, "relevance_profile.threshold"},
		{"NUL", service.WorkspaceSpec{Name: "a\x00"}, "name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantKind(t, ignore(f.svc.CreateWorkspace(ctx, c.spec)), service.ErrInvalid, c.field)
		})
	}
	se := wantKind(t, ignore(f.svc.CreateWorkspace(ctx, service.WorkspaceSpec{Name: "news"})), service.ErrConflict, "name")
	if se.Message != `a workspace named "news" already exists` {
		t.Fatal(se.Message)
	}
}

func TestUpdateWorkspace(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	wantKind(t, ignore(f.svc.UpdateWorkspace(ctx, f.wsID, service.WorkspaceChange{})), service.ErrInvalid, "")
	wantKind(t, ignore(f.svc.UpdateWorkspace(ctx, 999, service.WorkspaceChange{Name: ptr("x")})), service.ErrNotFound, "")
	wantKind(t, ignore(f.svc.UpdateWorkspace(ctx, f.wsID, service.WorkspaceChange{Name: ptr("other")})), service.ErrConflict, "name")
	ws, err := f.svc.UpdateWorkspace(ctx, f.wsID, service.WorkspaceChange{RelevanceProfile: &service.ProfileSpec{}})
	if err != nil || ws.Name != "main" || ws.Profile.Threshold != 0.35 {
		t.Fatalf("%+v %v", ws, err)
	}
	all, err := f.svc.ListWorkspaces(ctx)
	if err != nil || len(all) != 2 || all[1].Profile.Keywords == nil {
		t.Fatalf("%+v %v", all, err)
	}
}
