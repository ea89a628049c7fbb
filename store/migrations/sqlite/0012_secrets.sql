-- Secrets move out of the tables reports read, as on PostgreSQL (where
-- they get a schema no reporting role may use): a webhook's signing
-- secret, and a WebSub subscription's callback token and secret. SQLite
-- has no roles: the database file itself is created readable by its
-- owner only, and `feedpoller sql` refuses to read these tables.
CREATE TABLE webhook_secrets (
    webhook_id INTEGER PRIMARY KEY REFERENCES webhooks(id) ON DELETE CASCADE,
    secret     TEXT NOT NULL
);
INSERT INTO webhook_secrets (webhook_id, secret) SELECT id, secret FROM webhooks;
ALTER TABLE webhooks DROP COLUMN secret;

-- SQLite cannot drop a UNIQUE column (callback_token): the table is
-- rebuilt without the two columns, ids and its AUTOINCREMENT counter
-- kept, the secrets held aside meanwhile. Nothing references the table
-- yet, so dropping the old one deletes nothing elsewhere.
CREATE TABLE websub_secrets_moving AS
    SELECT id AS subscription_id, callback_token, secret FROM websub_subscriptions;
CREATE TABLE websub_subscriptions_rebuilt (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    feed_source_id   INTEGER NOT NULL UNIQUE,
    hub_url          TEXT NOT NULL,
    topic_url        TEXT NOT NULL,
    state            TEXT NOT NULL DEFAULT 'pending'
        CHECK (state IN ('pending', 'verified', 'denied', 'expired', 'unsubscribed')),
    pending_mode     TEXT NOT NULL DEFAULT '' CHECK (pending_mode IN ('', 'subscribe', 'unsubscribe')),
    lease_seconds    INTEGER NOT NULL DEFAULT 0,
    lease_expires_at TIMESTAMP,
    next_request_at  TIMESTAMP NOT NULL,
    requests         INTEGER NOT NULL DEFAULT 0,
    failures         INTEGER NOT NULL DEFAULT 0,
    verifications    INTEGER NOT NULL DEFAULT 0,
    deliveries       INTEGER NOT NULL DEFAULT 0,
    rejected         INTEGER NOT NULL DEFAULT 0,
    last_error       TEXT NOT NULL DEFAULT '',
    last_delivery_at TIMESTAMP,
    created_at       TIMESTAMP NOT NULL,
    updated_at       TIMESTAMP NOT NULL
);
INSERT INTO websub_subscriptions_rebuilt (id, feed_source_id, hub_url, topic_url, state, pending_mode, lease_seconds,
        lease_expires_at, next_request_at, requests, failures, verifications, deliveries, rejected, last_error,
        last_delivery_at, created_at, updated_at)
    SELECT id, feed_source_id, hub_url, topic_url, state, pending_mode, lease_seconds, lease_expires_at, next_request_at,
        requests, failures, verifications, deliveries, rejected, last_error, last_delivery_at, created_at, updated_at
    FROM websub_subscriptions;
INSERT INTO sqlite_sequence (name, seq)
    SELECT 'websub_subscriptions_rebuilt', seq FROM sqlite_sequence WHERE name = 'websub_subscriptions'
    AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'websub_subscriptions_rebuilt');
UPDATE sqlite_sequence SET seq = MAX(seq, (SELECT seq FROM sqlite_sequence WHERE name = 'websub_subscriptions'))
    WHERE name = 'websub_subscriptions_rebuilt';
DROP TABLE websub_subscriptions;
ALTER TABLE websub_subscriptions_rebuilt RENAME TO websub_subscriptions;
CREATE INDEX websub_subscriptions_due ON websub_subscriptions (next_request_at);

CREATE TABLE websub_secrets (
    subscription_id INTEGER PRIMARY KEY REFERENCES websub_subscriptions(id) ON DELETE CASCADE,
    callback_token  TEXT NOT NULL UNIQUE,
    secret          TEXT NOT NULL
);
INSERT INTO websub_secrets (subscription_id, callback_token, secret)
    SELECT subscription_id, callback_token, secret FROM websub_secrets_moving;
DROP TABLE websub_secrets_moving;
