-- The folder an imported subscription sat in (OPML import), kept on the
-- source and written back as a folder on export. Empty: none.
ALTER TABLE feed_sources ADD COLUMN category TEXT NOT NULL DEFAULT '';

-- Sources that fail or are no longer polled, counted by source type at
-- every scheduler tick for the failure gauges: the partial index keeps
-- that count to the unhealthy few instead of the whole table.
CREATE INDEX feed_sources_unhealthy ON feed_sources (source_type)
    WHERE consecutive_failures > 0 OR NOT is_active;

-- A workspace's webhooks: where promoted content items are POSTed, signed
-- with the secret. events is a comma-separated list of event names.
CREATE TABLE webhooks (
    id              BIGSERIAL PRIMARY KEY,
    workspace_id    BIGINT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    url             TEXT NOT NULL,
    secret          TEXT NOT NULL,
    events          TEXT NOT NULL,
    is_active       BOOLEAN NOT NULL DEFAULT TRUE,
    disabled_reason TEXT NOT NULL DEFAULT '',
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_workspace ON webhooks (workspace_id);

-- The outbox: one row per event and webhook, written in the transaction
-- of the event itself (a promotion), sent by the webhook worker. payload
-- is the exact body every attempt sends; id is the delivery id receivers
-- deduplicate by.
CREATE TABLE webhook_deliveries (
    id               TEXT PRIMARY KEY,
    webhook_id       BIGINT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    workspace_id     BIGINT NOT NULL,
    event            TEXT NOT NULL,
    content_item_id  BIGINT,
    payload          TEXT NOT NULL,
    status           TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  TIMESTAMPTZ NOT NULL,
    lease_owner      TEXT,
    lease_until      TIMESTAMPTZ,
    last_attempt_at  TIMESTAMPTZ,
    last_status_code INTEGER,
    last_error       TEXT NOT NULL DEFAULT '',
    failure_reason   TEXT NOT NULL DEFAULT '',
    delivered_at     TIMESTAMPTZ,
    failed_at        TIMESTAMPTZ,
    created_at       TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, id);
