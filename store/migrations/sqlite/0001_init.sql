-- feedpoller schema, SQLite dialect, mirroring ../postgres.

CREATE TABLE workspaces (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    name              TEXT NOT NULL UNIQUE,
    relevance_profile TEXT NOT NULL DEFAULT '{}',
    created_at        TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE feed_sources (
    id                       INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id             INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    url                      TEXT NOT NULL,
    source_type              TEXT NOT NULL DEFAULT 'rss' CHECK (source_type IN ('rss', 'web', 'api')),
    title                    TEXT NOT NULL DEFAULT '',
    is_active                BOOLEAN NOT NULL DEFAULT TRUE,
    polling_interval_minutes INTEGER NOT NULL DEFAULT 30 CHECK (polling_interval_minutes BETWEEN 1 AND 43200),
    track_changes            BOOLEAN NOT NULL DEFAULT FALSE,
    etag                     TEXT NOT NULL DEFAULT '',
    last_modified            TEXT NOT NULL DEFAULT '',
    last_polled_at           TIMESTAMP,
    last_polled_status       TEXT NOT NULL DEFAULT '',
    last_polled_error        TEXT NOT NULL DEFAULT '',
    consecutive_failures     INTEGER NOT NULL DEFAULT 0,
    next_poll_at             TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    last_unconditional_at    TIMESTAMP,
    -- when the current lease's poll was due: the scheduler-lag measure
    due_at                   TIMESTAMP,
    lease_until              TIMESTAMP,
    lease_owner              TEXT NOT NULL DEFAULT '',
    created_at               TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at               TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (workspace_id, url)
);

-- Due-source selection reads only this partial index: active sources under
-- the failure limit, ordered by when they are due.
CREATE INDEX feed_sources_due ON feed_sources (next_poll_at)
    WHERE is_active = 1 AND consecutive_failures < 10;

CREATE TABLE feed_articles (
    id                   INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id         INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    feed_source_id       INTEGER REFERENCES feed_sources(id) ON DELETE SET NULL,
    external_url         TEXT NOT NULL,
    external_id          TEXT,
    title                TEXT NOT NULL DEFAULT '',
    author               TEXT NOT NULL DEFAULT '',
    published_at         TIMESTAMP,
    summary              TEXT NOT NULL DEFAULT '',
    content_markdown     TEXT NOT NULL DEFAULT '',
    extraction_method    TEXT NOT NULL DEFAULT '',
    word_count           INTEGER NOT NULL DEFAULT 0,
    relevance_score      REAL NOT NULL DEFAULT 0,
    matched_terms        TEXT NOT NULL DEFAULT '[]',
    content_text_hash    TEXT NOT NULL DEFAULT '',
    revision             INTEGER NOT NULL DEFAULT 1,
    previous_article_id  INTEGER REFERENCES feed_articles(id) ON DELETE SET NULL,
    reading_time_seconds INTEGER NOT NULL DEFAULT 0,
    input_tokens         INTEGER NOT NULL DEFAULT 0,
    output_tokens        INTEGER NOT NULL DEFAULT 0,
    quality_score        REAL NOT NULL DEFAULT 0,
    language             TEXT NOT NULL DEFAULT '',
    created_at           TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    -- One row per URL and revision in a workspace: concurrent polls cannot
    -- store one URL twice.
    UNIQUE (workspace_id, external_url, revision)
);
CREATE INDEX feed_articles_source_guid ON feed_articles (feed_source_id, external_id);
CREATE INDEX feed_articles_ws_created ON feed_articles (workspace_id, id DESC);

CREATE TABLE content_items (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id      INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    feed_article_id   INTEGER NOT NULL REFERENCES feed_articles(id) ON DELETE CASCADE,
    url               TEXT NOT NULL,
    title             TEXT NOT NULL DEFAULT '',
    content_markdown  TEXT NOT NULL DEFAULT '',
    content_text_hash TEXT NOT NULL,
    relevance_score   REAL NOT NULL DEFAULT 0,
    matched_terms     TEXT NOT NULL DEFAULT '[]',
    published_at      TIMESTAMP,
    promoted_at       TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    -- The cross-source exact-duplicate guard.
    UNIQUE (workspace_id, content_text_hash)
);
CREATE INDEX content_items_ws_id ON content_items (workspace_id, id DESC);

CREATE TABLE poll_runs (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    feed_source_id  INTEGER NOT NULL REFERENCES feed_sources(id) ON DELETE CASCADE,
    started_at      TIMESTAMP NOT NULL,
    finished_at     TIMESTAMP,
    outcome         TEXT NOT NULL,
    http_status     INTEGER NOT NULL DEFAULT 0,
    items_seen      INTEGER NOT NULL DEFAULT 0,
    items_new       INTEGER NOT NULL DEFAULT 0,
    items_duplicate INTEGER NOT NULL DEFAULT 0,
    items_promoted  INTEGER NOT NULL DEFAULT 0,
    duration_ms     INTEGER NOT NULL DEFAULT 0,
    error           TEXT NOT NULL DEFAULT ''
);
CREATE INDEX poll_runs_source ON poll_runs (feed_source_id, id DESC);

CREATE TABLE api_tokens (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id INTEGER REFERENCES workspaces(id) ON DELETE CASCADE, -- NULL: admin token
    name         TEXT NOT NULL DEFAULT '',
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    revoked_at   TIMESTAMP
);
