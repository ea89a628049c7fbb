-- Saves read a workspace's story index from the process's copy of it
-- (store/storycopy.go), which loads the document frequencies from a week
-- on and the term index from a time on: nothing reads a term across
-- weeks, or a term's entries, from the tables any more. So both are
-- kept by time, where a save's writes fall together: ordered by term,
-- the rows a save of 20 articles adds to (a few hundred frequencies, 240
-- index entries) lay on as many pages spread over each table, all of
-- which its commit wrote (at 100 000 archived articles, 381 pages of
-- story_doc_freq and 281 of story_terms, 84 % of the save's WAL frames).
-- A primary key cannot be altered in place: the tables are rebuilt.
-- Nothing references them.
CREATE TABLE story_doc_freq_by_week (
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    period       INTEGER NOT NULL,
    term         INTEGER NOT NULL,
    shard        INTEGER NOT NULL DEFAULT 0,
    docs         INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, period, term, shard)
) WITHOUT ROWID;
INSERT INTO story_doc_freq_by_week (workspace_id, period, term, shard, docs)
    SELECT workspace_id, period, term, shard, docs FROM story_doc_freq ORDER BY workspace_id, period, term, shard;
DROP TABLE story_doc_freq;
ALTER TABLE story_doc_freq_by_week RENAME TO story_doc_freq;
CREATE INDEX story_doc_freq_period ON story_doc_freq (period);

CREATE TABLE story_terms_by_time (
    workspace_id    INTEGER NOT NULL,
    reported_unix   INTEGER NOT NULL,
    feed_article_id INTEGER NOT NULL REFERENCES feed_articles(id) ON DELETE CASCADE,
    term            INTEGER NOT NULL,
    story_id        INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, reported_unix, feed_article_id, term)
) WITHOUT ROWID;
INSERT INTO story_terms_by_time (workspace_id, reported_unix, feed_article_id, term, story_id)
    SELECT workspace_id, reported_unix, feed_article_id, term, story_id FROM story_terms
    ORDER BY workspace_id, reported_unix, feed_article_id, term;
DROP TABLE story_terms;
ALTER TABLE story_terms_by_time RENAME TO story_terms;
CREATE INDEX story_terms_article ON story_terms (feed_article_id);
CREATE INDEX story_terms_reported ON story_terms (reported_unix);

-- The version of each workspace's story index (its document frequencies,
-- its term index and the merges its entries follow) that a process's copy
-- was read at. Each save that writes to it sets token to a random value of
-- its own and previous to the value it replaced, in the one statement: a
-- copy is current when its token is the previous the save reads, and
-- otherwise it is read again (another process saved, or rows were
-- deleted: the triggers give them a new token).
CREATE TABLE story_index_version (
    workspace_id INTEGER PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
    token        INTEGER NOT NULL,
    previous     INTEGER NOT NULL DEFAULT 0
);
CREATE TRIGGER story_doc_freq_deleted AFTER DELETE ON story_doc_freq BEGIN
    UPDATE story_index_version SET token = random() WHERE workspace_id = OLD.workspace_id;
END;
CREATE TRIGGER story_terms_deleted AFTER DELETE ON story_terms BEGIN
    UPDATE story_index_version SET token = random() WHERE workspace_id = OLD.workspace_id;
END;
