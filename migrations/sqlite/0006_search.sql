-- Full-text search over feed articles: an FTS5 index over title, summary
-- and body, ranked with BM25. It is an external-content table: the text
-- stays in feed_articles only, and snippet() reads it from there. The
-- triggers keep the index in step with every write of feed_articles inside
-- the writing statement itself (a poll's batched INSERT included), so the
-- save path sends nothing more. porter stems English words (release,
-- releases, released); unicode61 without diacritics folds café to cafe.
CREATE VIRTUAL TABLE feed_articles_fts USING fts5(
    title, summary, content_markdown,
    content = 'feed_articles', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER feed_articles_fts_insert AFTER INSERT ON feed_articles BEGIN
    INSERT INTO feed_articles_fts (rowid, title, summary, content_markdown)
    VALUES (new.id, new.title, new.summary, new.content_markdown);
END;

CREATE TRIGGER feed_articles_fts_delete AFTER DELETE ON feed_articles BEGIN
    INSERT INTO feed_articles_fts (feed_articles_fts, rowid, title, summary, content_markdown)
    VALUES ('delete', old.id, old.title, old.summary, old.content_markdown);
END;

CREATE TRIGGER feed_articles_fts_update AFTER UPDATE OF title, summary, content_markdown ON feed_articles BEGIN
    INSERT INTO feed_articles_fts (feed_articles_fts, rowid, title, summary, content_markdown)
    VALUES ('delete', old.id, old.title, old.summary, old.content_markdown);
    INSERT INTO feed_articles_fts (rowid, title, summary, content_markdown)
    VALUES (new.id, new.title, new.summary, new.content_markdown);
END;

-- Articles stored before this version.
INSERT INTO feed_articles_fts (feed_articles_fts) VALUES ('rebuild');

-- A read-only token reads what its scope allows and changes nothing: the
-- REST API refuses it every write, the MCP server its write tools.
ALTER TABLE api_tokens ADD COLUMN read_only BOOLEAN NOT NULL DEFAULT FALSE;

-- Search results say whether each article was promoted: a look-up by
-- article, which also serves deleting an article (the cascade).
CREATE INDEX content_items_article ON content_items (feed_article_id);
