-- The term index keeps one row per article on SQLite: the article's
-- index terms as one JSON array, ascending, beside its workspace, time,
-- id and story. A save files 20 articles with 20 rows instead of 240,
-- and their 240 entries in story_terms_article become 20. Nothing reads
-- the table by term on SQLite: a save's placement reads the window's
-- rows by time (a range of the primary key) into the process's copy of
-- the index, or once a save for a small workspace (store's
-- storycopy_postings.go); members and moves find an article's row by its
-- id (story_terms_article); the prune goes by workspace and time. An
-- article's rows share its story, which moves change for all of them, so
-- one row holds what its rows held.
--
-- story_term_entries is the index entry by entry, as PostgreSQL keeps
-- it and as before: for SQL reading the index, and tests on both
-- databases.
CREATE TABLE story_terms_per_article (
    workspace_id    INTEGER NOT NULL,
    reported_unix   INTEGER NOT NULL,
    feed_article_id INTEGER NOT NULL REFERENCES feed_articles(id) ON DELETE CASCADE,
    story_id        INTEGER NOT NULL,
    terms           TEXT NOT NULL,
    PRIMARY KEY (workspace_id, reported_unix, feed_article_id)
) WITHOUT ROWID;
INSERT INTO story_terms_per_article (workspace_id, reported_unix, feed_article_id, story_id, terms)
    SELECT workspace_id, reported_unix, feed_article_id, MIN(story_id), '[' || group_concat(term, ',' ORDER BY term) || ']'
    FROM story_terms GROUP BY workspace_id, reported_unix, feed_article_id
    ORDER BY workspace_id, reported_unix, feed_article_id;
DROP TABLE story_terms;
ALTER TABLE story_terms_per_article RENAME TO story_terms;
CREATE INDEX story_terms_article ON story_terms (feed_article_id);
CREATE TRIGGER story_terms_deleted AFTER DELETE ON story_terms BEGIN
    UPDATE story_index_version SET token = random() WHERE workspace_id = OLD.workspace_id;
END;
CREATE VIEW story_term_entries AS
    SELECT t.workspace_id, CAST(j.value AS INTEGER) AS term, t.reported_unix, t.feed_article_id, t.story_id
    FROM story_terms t, json_each(t.terms) j;
