-- feedpoller schema, PostgreSQL dialect. SQLite mirrors it in ../sqlite.

CREATE TABLE workspaces (
    id                BIGSERIAL PRIMARY KEY,
    name              TEXT NOT NULL UNIQUE,
    relevance_profile TEXT NOT NULL DEFAULT '{}',
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE feed_sources (
    id                       BIGSERIAL PRIMARY KEY,
    workspace_id             BIGINT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    url                      TEXT NOT NULL,
    source_type              TEXT NOT NULL DEFAULT 'rss' CHECK (source_type IN ('rss', 'web', 'api')),
    title                    TEXT NOT NULL DEFAULT '',
    is_active                BOOLEAN NOT NULL DEFAULT TRUE,
    polling_interval_minutes INTEGER NOT NULL DEFAULT 30 CHECK (polling_interval_minutes BETWEEN 1 AND 43200),
    track_changes            BOOLEAN NOT NULL DEFAULT FALSE,
    etag                     TEXT NOT NULL DEFAULT '',
    last_modified            TEXT NOT NULL DEFAULT '',
    last_polled_at           TIMESTAMPTZ,
    last_polled_status       TEXT NOT NULL DEFAULT '',
    last_polled_error        TEXT NOT NULL DEFAULT '',
    consecutive_failures     INTEGER NOT NULL DEFAULT 0,
    next_poll_at             TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_unconditional_at    TIMESTAMPTZ,
    -- when the current lease's poll was due: the scheduler-lag measure
    due_at                   TIMESTAMPTZ,
    lease_until              TIMESTAMPTZ,
    lease_owner              TEXT NOT NULL DEFAULT '',
    created_at               TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at               TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (workspace_id, url)
);

-- Due-source selection reads only this partial index: active sources under
-- the failure limit, ordered by when they are due.
CREATE INDEX feed_sources_due ON feed_sources (next_poll_at)
    WHERE is_active AND consecutive_failures < 10;

CREATE TABLE feed_articles (
    id                   BIGSERIAL PRIMARY KEY,
    workspace_id         BIGINT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    feed_source_id       BIGINT REFERENCES feed_sources(id) ON DELETE SET NULL,
    external_url         TEXT NOT NULL,
    external_id          TEXT,
    title                TEXT NOT NULL DEFAULT '',
    author               TEXT NOT NULL DEFAULT '',
    published_at         TIMESTAMPTZ,
    summary              TEXT NOT NULL DEFAULT '',
    content_markdown     TEXT NOT NULL DEFAULT '',
    extraction_method    TEXT NOT NULL DEFAULT '',
    word_count           INTEGER NOT NULL DEFAULT 0,
    relevance_score      DOUBLE PRECISION NOT NULL DEFAULT 0,
    matched_terms        TEXT NOT NULL DEFAULT '[]',
    content_text_hash    TEXT NOT NULL DEFAULT '',
    revision             INTEGER NOT NULL DEFAULT 1,
    previous_article_id  BIGINT REFERENCES feed_articles(id) ON DELETE SET NULL,
    reading_time_seconds INTEGER NOT NULL DEFAULT 0,
    input_tokens         INTEGER NOT NULL DEFAULT 0,
    output_tokens        INTEGER NOT NULL DEFAULT 0,
    quality_score        DOUBLE PRECISION NOT NULL DEFAULT 0,
    language             TEXT NOT NULL DEFAULT '',
    created_at           TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- One row per URL and revision in a workspace: concurrent polls cannot
    -- store one URL twice.
    UNIQUE (workspace_id, external_url, revision)
);
CREATE INDEX feed_articles_source_guid ON feed_articles (feed_source_id, external_id);
CREATE INDEX feed_articles_ws_created ON feed_articles (workspace_id, id DESC);

CREATE TABLE content_items (
    id                BIGSERIAL PRIMARY KEY,
    workspace_id      BIGINT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    feed_article_id   BIGINT NOT NULL REFERENCES feed_articles(id) ON DELETE CASCADE,
    url               TEXT NOT NULL,
    title             TEXT NOT NULL DEFAULT '',
    content_markdown  TEXT NOT NULL DEFAULT '',
    content_text_hash TEXT NOT NULL,
    relevance_score   DOUBLE PRECISION NOT NULL DEFAULT 0,
    matched_terms     TEXT NOT NULL DEFAULT '[]',
    published_at      TIMESTAMPTZ,
    promoted_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- The cross-source exact-duplicate guard.
    UNIQUE (workspace_id, content_text_hash)
);
CREATE INDEX content_items_ws_id ON content_items (workspace_id, id DESC);

CREATE TABLE poll_runs (
    id              BIGSERIAL PRIMARY KEY,
    feed_source_id  BIGINT NOT NULL REFERENCES feed_sources(id) ON DELETE CASCADE,
    started_at      TIMESTAMPTZ NOT NULL,
    finished_at     TIMESTAMPTZ,
    outcome         TEXT NOT NULL,
    http_status     INTEGER NOT NULL DEFAULT 0,
    items_seen      INTEGER NOT NULL DEFAULT 0,
    items_new       INTEGER NOT NULL DEFAULT 0,
    items_duplicate INTEGER NOT NULL DEFAULT 0,
    items_promoted  INTEGER NOT NULL DEFAULT 0,
    duration_ms     BIGINT NOT NULL DEFAULT 0,
    error           TEXT NOT NULL DEFAULT ''
);
CREATE INDEX poll_runs_source ON poll_runs (feed_source_id, id DESC);

CREATE TABLE api_tokens (
    id           BIGSERIAL PRIMARY KEY,
    workspace_id BIGINT REFERENCES workspaces(id) ON DELETE CASCADE, -- NULL: admin token
    name         TEXT NOT NULL DEFAULT '',
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    revoked_at   TIMESTAMPTZ
);
