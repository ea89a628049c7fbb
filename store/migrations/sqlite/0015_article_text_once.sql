-- An article whose body is its feed summary (extraction_method
-- 'summary_degraded') keeps that text once, in content_markdown, with an
-- empty summary that reads back as the body. The search index holds it
-- once too, in its summary column (ranked as a summary). Rows stored
-- before this version keep their summary, so the index's content reads
-- them as before and nothing needs rebuilding.
DROP TRIGGER feed_articles_fts_insert;
DROP TRIGGER feed_articles_fts_delete;
DROP TRIGGER feed_articles_fts_update;
DROP VIEW feed_articles_fts_content;

CREATE VIEW feed_articles_fts_content AS
    SELECT id, title,
        CASE WHEN summary = '' AND extraction_method = 'summary_degraded' THEN content_markdown ELSE summary END AS summary,
        CASE WHEN summary = '' AND extraction_method = 'summary_degraded' THEN '' ELSE content_markdown END AS content_markdown,
        'w' || workspace_id AS workspace
    FROM feed_articles;

CREATE TRIGGER feed_articles_fts_insert AFTER INSERT ON feed_articles BEGIN
    INSERT INTO feed_articles_fts (rowid, title, summary, content_markdown, workspace)
    VALUES (new.id, new.title,
        CASE WHEN new.summary = '' AND new.extraction_method = 'summary_degraded' THEN new.content_markdown ELSE new.summary END,
        CASE WHEN new.summary = '' AND new.extraction_method = 'summary_degraded' THEN '' ELSE new.content_markdown END,
        'w' || new.workspace_id);
END;

CREATE TRIGGER feed_articles_fts_delete AFTER DELETE ON feed_articles BEGIN
    INSERT INTO feed_articles_fts (feed_articles_fts, rowid, title, summary, content_markdown, workspace)
    VALUES ('delete', old.id, old.title,
        CASE WHEN old.summary = '' AND old.extraction_method = 'summary_degraded' THEN old.content_markdown ELSE old.summary END,
        CASE WHEN old.summary = '' AND old.extraction_method = 'summary_degraded' THEN '' ELSE old.content_markdown END,
        'w' || old.workspace_id);
END;

CREATE TRIGGER feed_articles_fts_update AFTER UPDATE OF title, summary, content_markdown, extraction_method ON feed_articles BEGIN
    INSERT INTO feed_articles_fts (feed_articles_fts, rowid, title, summary, content_markdown, workspace)
    VALUES ('delete', old.id, old.title,
        CASE WHEN old.summary = '' AND old.extraction_method = 'summary_degraded' THEN old.content_markdown ELSE old.summary END,
        CASE WHEN old.summary = '' AND old.extraction_method = 'summary_degraded' THEN '' ELSE old.content_markdown END,
        'w' || old.workspace_id);
    INSERT INTO feed_articles_fts (rowid, title, summary, content_markdown, workspace)
    VALUES (new.id, new.title,
        CASE WHEN new.summary = '' AND new.extraction_method = 'summary_degraded' THEN new.content_markdown ELSE new.summary END,
        CASE WHEN new.summary = '' AND new.extraction_method = 'summary_degraded' THEN '' ELSE new.content_markdown END,
        'w' || new.workspace_id);
END;
