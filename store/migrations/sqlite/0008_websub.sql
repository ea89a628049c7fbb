-- WebSub subscriptions, one per feed source at most. feed_source_id is a
-- plain column, not a foreign key: a subscription outlives its source's
-- deletion until the hub has been told to stop. callback_token names the
-- callback URL (unguessable); secret signs the hub's deliveries and is
-- never listed. state: pending (asked, not yet verified), verified,
-- denied, expired, unsubscribed. pending_mode is the request we await the
-- hub's verification of ('' none). next_request_at: when the subscriber
-- next sends a request (first subscription, retry, renewal, unsubscribe).
CREATE TABLE websub_subscriptions (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    feed_source_id   INTEGER NOT NULL UNIQUE,
    hub_url          TEXT NOT NULL,
    topic_url        TEXT NOT NULL,
    callback_token   TEXT NOT NULL UNIQUE,
    secret           TEXT NOT NULL,
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
CREATE INDEX websub_subscriptions_due ON websub_subscriptions (next_request_at);
