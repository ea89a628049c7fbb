-- The admin token generated at first start is marked, so that it can be
-- revoked once FEEDPOLLER_ADMIN_TOKEN is configured.
ALTER TABLE api_tokens ADD COLUMN generated BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE api_tokens SET generated = TRUE
    WHERE workspace_id IS NULL AND name = 'admin (generated at first start)';
