package service

import (
	"context"
	"errors"
	"strings"

	"github.com/feedpoller/feedpoller/auth"
	"github.com/feedpoller/feedpoller/model"
)

// TokenStore is the storage of API tokens. *store.Store satisfies it.
type TokenStore interface {
	CreateToken(ctx context.Context, workspaceID *int64, name, token string) (*model.APIToken, error)
	CreateReadOnlyToken(ctx context.Context, workspaceID *int64, name, token string) (*model.APIToken, error)
	ListTokens(ctx context.Context, workspaceID int64) ([]model.APIToken, error)
	RevokeToken(ctx context.Context, workspaceID, id int64) error
	// RevokeAdminToken revokes an admin token; with keepWritable it
	// refuses (model.ErrLastAdmin) to revoke the last live admin token
	// that may write, in one transaction with the check.
	RevokeAdminToken(ctx context.Context, id int64, keepWritable bool) error
}

// TokenSpec is a new API token as a caller asks for it.
type TokenSpec struct {
	Name     string `json:"name" validate:"required,max=200"`
	ReadOnly bool   `json:"read_only"`
}

// CreatedToken is a stored token and its secret, which is never shown
// again: only its hash is kept.
type CreatedToken struct {
	Token  model.APIToken
	Secret string
}

// TokenNote is what every front end says beside a new token's secret.
const TokenNote = "store this token now: only its hash is kept, it cannot be shown again"

// tokenStore is the token storage, or ErrUnavailable.
func (s *Service) tokenStore() (TokenStore, error) {
	if s.opts.APITokens == nil {
		return nil, &Error{Kind: ErrUnavailable, Message: "tokens are not available: this process runs without token storage"}
	}
	return s.opts.APITokens, nil
}

// CreateToken stores a new token of a workspace (nil: an admin token)
// and returns its secret, once. Who may create one is the front end's
// rule (the admin, over the API and the console).
func (s *Service) CreateToken(ctx context.Context, workspaceID *int64, spec TokenSpec) (*CreatedToken, error) {
	st, err := s.tokenStore()
	if err != nil {
		return nil, err
	}
	if workspaceID != nil {
		if _, err := s.GetWorkspace(ctx, *workspaceID); err != nil {
			return nil, err
		}
	}
	spec.Name = strings.TrimSpace(spec.Name)
	if err := s.rules.Check(&spec, nil); err != nil {
		return nil, err
	}
	secret, err := auth.NewToken()
	if err != nil {
		return nil, err
	}
	create := st.CreateToken
	if spec.ReadOnly {
		create = st.CreateReadOnlyToken
	}
	t, err := create(ctx, workspaceID, spec.Name, secret)
	if err != nil {
		return nil, err
	}
	return &CreatedToken{Token: *t, Secret: secret}, nil
}

// ListTokens lists a workspace's tokens (0: the stored admin tokens),
// revoked ones included, never their secrets.
func (s *Service) ListTokens(ctx context.Context, workspaceID int64) ([]model.APIToken, error) {
	st, err := s.tokenStore()
	if err != nil {
		return nil, err
	}
	if workspaceID != 0 {
		if _, err := s.GetWorkspace(ctx, workspaceID); err != nil {
			return nil, err
		}
	}
	toks, err := st.ListTokens(ctx, workspaceID)
	if toks == nil && err == nil {
		toks = []model.APIToken{}
	}
	return toks, err
}

// RevokeToken revokes a live token of a workspace (0: an admin token).
// Without a configured admin token (adminConfigured false) it refuses to
// revoke the last live admin token that may write (read-only ones cannot
// make another): that would leave no admin at all. The store checks and
// revokes in one transaction, so two revocations at once cannot both pass.
func (s *Service) RevokeToken(ctx context.Context, workspaceID, id int64, adminConfigured bool) error {
	st, err := s.tokenStore()
	if err != nil {
		return err
	}
	if workspaceID == 0 {
		err = st.RevokeAdminToken(ctx, id, !adminConfigured)
	} else {
		err = st.RevokeToken(ctx, workspaceID, id)
	}
	switch {
	case errors.Is(err, model.ErrLastAdmin):
		return &Error{Kind: ErrConflict, Message: "this is the last admin token that may write, and FEEDPOLLER_ADMIN_TOKEN is not set: " +
			"create another admin token first (POST /api/intelligence/tokens)"}
	case errors.Is(err, model.ErrNotFound):
		return notFound("token")
	}
	return err
}
