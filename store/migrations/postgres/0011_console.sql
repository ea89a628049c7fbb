-- Web console sessions. A browser holds a random session id; only its
-- SHA-256 is stored, beside the API token the session acts as, sealed
-- with a key derived from that id, so neither a copy of this table nor a
-- reader of it can act as anyone. Expired rows are pruned at sign-in.
CREATE TABLE console_sessions (
    id          BIGSERIAL PRIMARY KEY,
    id_hash     TEXT NOT NULL UNIQUE,
    sealed      TEXT NOT NULL,
    flash       TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);

-- The console's activity chart counts a workspace's polls by hour: its
-- sources' runs in a window.
CREATE INDEX poll_runs_source_started ON poll_runs (feed_source_id, started_at);
