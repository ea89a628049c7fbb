-- Timestamps are text in SQLite, written in more than one form (the column
-- defaults' 2026-01-02T03:04:05.000Z, datetime('now')'s 2026-01-02 03:04:05,
-- the Go driver's 2026-01-02 03:04:05.123+00:00), which do not sort as text.
-- Due-source selection compares julianday(next_poll_at), so the partial due
-- index is rebuilt on that expression.
DROP INDEX feed_sources_due;
CREATE INDEX feed_sources_due ON feed_sources (julianday(next_poll_at))
    WHERE is_active = 1 AND consecutive_failures < 10;

-- The admin token generated at first start is marked, so that it can be
-- revoked once FEEDPOLLER_ADMIN_TOKEN is configured.
ALTER TABLE api_tokens ADD COLUMN generated BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE api_tokens SET generated = TRUE
    WHERE workspace_id IS NULL AND name = 'admin (generated at first start)';
