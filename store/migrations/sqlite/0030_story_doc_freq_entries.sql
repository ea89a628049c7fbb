-- A small workspace's document frequencies as one row per save and week,
-- as on PostgreSQL (its migration 0030). story_doc_freq keeps a row per
-- workspace, week, term and shard; a workspace of a few sources sees most
-- of its words once, so each of its articles' features (up to 96) was a
-- row inserted into the table's B-tree, and a save's read looked each of
-- its terms up in every week of the window. A save in a workspace that
-- counts fewer than store.docFreqLogUnder articles in its window now
-- writes its features' counts as one row here per week it counts in (a
-- JSON array of its terms, ascending, a term once per article that has
-- it, each given as its difference from the one before: terms are
-- 32-bit hashes, and the differences of a week's few thousand take
-- three digits fewer); the article
-- count stays in story_doc_freq. A read sums both; the first save of a
-- workspace that counts more moves the workspace's rows here into
-- story_doc_freq. A deletion replaces the workspace's token of the story
-- index, as story_doc_freq's do (0027), so a copy of the frequencies is
-- read again.
CREATE TABLE story_doc_freq_log (
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    period       INTEGER NOT NULL,
    id           INTEGER NOT NULL,
    terms        TEXT NOT NULL,
    PRIMARY KEY (workspace_id, period, id)
) WITHOUT ROWID;
CREATE TRIGGER story_doc_freq_log_deleted AFTER DELETE ON story_doc_freq_log BEGIN
    UPDATE story_index_version SET token = random() WHERE workspace_id = OLD.workspace_id;
END;

-- The document frequencies entry by entry, wherever they are kept, as
-- PostgreSQL's view of the same name lists them: for SQL reading them,
-- and tests on both databases.
CREATE VIEW story_doc_freq_entries AS
    SELECT workspace_id, period, term, shard, docs FROM story_doc_freq
    UNION ALL
    SELECT l.workspace_id, l.period,
        SUM(j.value) OVER (PARTITION BY l.workspace_id, l.period, l.id ORDER BY j.key ROWS UNBOUNDED PRECEDING), 0, 1
    FROM story_doc_freq_log l, json_each(l.terms) j;
