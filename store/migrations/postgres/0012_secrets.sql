-- Secrets move out of the tables a reporting role reads. A role given
-- SELECT on the tables of schema public (and on its future tables, by
-- default privileges) must not learn a webhook's signing secret, nor a
-- WebSub subscription's callback token (which names its callback URL)
-- and secret (which signs the hub's pushes): with them it could forge
-- deliveries to receivers or a push that stores articles. They live in
-- a schema of their own, on which nobody but the owner (the daemon's
-- role) has USAGE, so no grant on schema public reaches them, today's
-- or a later migration's.
CREATE SCHEMA feedpoller_secrets;
REVOKE ALL ON SCHEMA feedpoller_secrets FROM PUBLIC;

CREATE TABLE feedpoller_secrets.webhook_secrets (
    webhook_id BIGINT PRIMARY KEY REFERENCES webhooks(id) ON DELETE CASCADE,
    secret     TEXT NOT NULL
);
INSERT INTO feedpoller_secrets.webhook_secrets (webhook_id, secret) SELECT id, secret FROM webhooks;
ALTER TABLE webhooks DROP COLUMN secret;

CREATE TABLE feedpoller_secrets.websub_secrets (
    subscription_id BIGINT PRIMARY KEY REFERENCES websub_subscriptions(id) ON DELETE CASCADE,
    callback_token  TEXT NOT NULL UNIQUE,
    secret          TEXT NOT NULL
);
INSERT INTO feedpoller_secrets.websub_secrets (subscription_id, callback_token, secret)
    SELECT id, callback_token, secret FROM websub_subscriptions;
ALTER TABLE websub_subscriptions DROP COLUMN callback_token, DROP COLUMN secret;
