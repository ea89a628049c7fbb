-- Full-text search over feed articles: an FTS5 index over title, summary
-- and body, ranked with BM25. It is an external-content table: the text
-- stays in feed_articles only, and snippet() reads it from there. The
-- triggers keep the index in step with every write of feed_articles inside
-- the writing statement itself (a poll's batched INSERT included), so the
-- save path sends nothing more. porter stems English words (release,
-- releases, released); unicode61 without diacritics folds café to cafe.
--
-- The index has a fourth column, the article's workspace as a token
-- ("w17"): a search matches it together with the query inside the index,
-- so finding and ranking a workspace's matches never reads feed_articles
-- row by row. The view is the content the index reads back (snippets,
-- rebuilds).
CREATE VIEW feed_articles_fts_content AS
    SELECT id, title, summary, content_markdown, 'w' || workspace_id AS workspace FROM feed_articles;

CREATE VIRTUAL TABLE feed_articles_fts USING fts5(
    title, summary, content_markdown, workspace,
    content = 'feed_articles_fts_content', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER feed_articles_fts_insert AFTER INSERT ON feed_articles BEGIN
    INSERT INTO feed_articles_fts (rowid, title, summary, content_markdown, workspace)
    VALUES (new.id, new.title, new.summary, new.content_markdown, 'w' || new.workspace_id);
END;

CREATE TRIGGER feed_articles_fts_delete AFTER DELETE ON feed_articles BEGIN
    INSERT INTO feed_articles_fts (feed_articles_fts, rowid, title, summary, content_markdown, workspace)
    VALUES ('delete', old.id, old.title, old.summary, old.content_markdown, 'w' || old.workspace_id);
END;

CREATE TRIGGER feed_articles_fts_update AFTER UPDATE OF title, summary, content_markdown ON feed_articles BEGIN
    INSERT INTO feed_articles_fts (feed_articles_fts, rowid, title, summary, content_markdown, workspace)
    VALUES ('delete', old.id, old.title, old.summary, old.content_markdown, 'w' || old.workspace_id);
    INSERT INTO feed_articles_fts (rowid, title, summary, content_markdown, workspace)
    VALUES (new.id, new.title, new.summary, new.content_markdown, 'w' || new.workspace_id);
END;

-- ORDER BY rank is BM25 with a title match worth ten body matches and a
-- summary match four; the workspace column counts for nothing. FTS5 sorts
-- by rank itself, so a search computes snippets for the rows it returns
-- only.
INSERT INTO feed_articles_fts (feed_articles_fts, rank) VALUES ('rank', 'bm25(10.0, 4.0, 1.0, 0.0)');

-- Articles stored before this version.
INSERT INTO feed_articles_fts (feed_articles_fts) VALUES ('rebuild');

-- A read-only token reads what its scope allows and changes nothing: the
-- REST API refuses it every write, the MCP server its write tools.
ALTER TABLE api_tokens ADD COLUMN read_only BOOLEAN NOT NULL DEFAULT FALSE;

-- Search results say whether each article was promoted: a look-up by
-- article (content_items_article, made with the stories in 0005).
