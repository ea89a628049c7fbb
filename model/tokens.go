package model

import "time"

// APIToken is a stored bearer token; only its SHA-256 is kept.
type APIToken struct {
	ID          int64  `db:"id" json:"id"`
	WorkspaceID *int64 `db:"workspace_id" json:"workspace_id"` // nil: admin
	Name        string `db:"name" json:"name"`
	// Generated marks the admin token the daemon made at first start for
	// want of FEEDPOLLER_ADMIN_TOKEN; configuring one revokes it.
	Generated bool `db:"generated" json:"generated"`
	// ReadOnly tokens read what their scope allows and change nothing.
	ReadOnly  bool       `db:"read_only" json:"read_only"`
	CreatedAt time.Time  `db:"created_at" json:"created_at"`
	RevokedAt *time.Time `db:"revoked_at" json:"revoked_at,omitempty"`
}
