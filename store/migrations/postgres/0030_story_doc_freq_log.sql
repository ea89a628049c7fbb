-- A small workspace's document frequencies as one row per save and week.
--
-- story_doc_freq keeps a row per workspace, week and term. A workspace of
-- a few sources sees most of its words once: each of its articles'
-- features (up to 96) is a row inserted into the table and its two
-- indexes, about 9 KB and 40 index entries an article on news-like text,
-- where the article itself takes 8 KB. A save in a workspace that counts
-- fewer than store.docFreqLogUnder articles in its 30-day window now
-- writes its features' counts as one row here per week it counts in
-- (its terms ascending, their counts beside them); the article count and
-- the save's token (store.docFreqCheck) stay in story_doc_freq, so a copy
-- of the frequencies is checked as before. A read sums both. The first
-- save of a workspace that counts more moves the workspace's rows here
-- into story_doc_freq (deleted and added in its one statement), so a
-- growing workspace's reads find its counts in the table again; a row is
-- moved at most once (the deletion), and the sums never change.
CREATE TABLE story_doc_freq_log (
    workspace_id BIGINT NOT NULL,
    period       INTEGER NOT NULL,
    id           BIGINT GENERATED ALWAYS AS IDENTITY,
    terms        INTEGER[] NOT NULL,
    docs         INTEGER[] NOT NULL,
    PRIMARY KEY (workspace_id, period, id)
);

-- Its arrays are compressed with lz4 where the server was built with it,
-- as the articles' text is (0020): a save writes a few kilobytes of them,
-- which pglz took longer to compress than the rest of the statement.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings
               WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
        ALTER TABLE story_doc_freq_log
            ALTER COLUMN terms SET COMPRESSION lz4,
            ALTER COLUMN docs SET COMPRESSION lz4;
    END IF;
END
$$;

-- Goes with its workspace, as story_doc_freq's rows do (0022).
CREATE OR REPLACE FUNCTION story_doc_freq_forget_workspaces() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM story_doc_freq WHERE workspace_id IN (SELECT id FROM gone);
    DELETE FROM story_doc_freq_log WHERE workspace_id IN (SELECT id FROM gone);
    RETURN NULL;
END
$$;

-- The document frequencies entry by entry, wherever they are kept, terms
-- unsigned: for SQL reading them, and tests on both databases.
CREATE VIEW story_doc_freq_entries AS
    SELECT workspace_id, period, CAST(term AS BIGINT) & 4294967295 AS term, shard, docs FROM story_doc_freq
    UNION ALL
    SELECT l.workspace_id, l.period, CAST(u.term AS BIGINT) & 4294967295, 0, u.docs
    FROM story_doc_freq_log l CROSS JOIN LATERAL unnest(l.terms, l.docs) AS u(term, docs);
