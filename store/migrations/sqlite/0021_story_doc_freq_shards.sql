-- The article count of a week is kept in a few rows, one per shard of
-- sources (mirrors ../postgres, where the reason is: there saves of one
-- workspace wait on each other's row locks; here the one writer makes
-- the shard a no-op that keeps both schemas and the save's statement
-- alike). A primary key cannot be altered in place: the table is
-- rebuilt. Nothing references it.
CREATE TABLE story_doc_freq_rebuilt (
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    term         INTEGER NOT NULL,
    period       INTEGER NOT NULL,
    shard        INTEGER NOT NULL DEFAULT 0,
    docs         INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, term, period, shard)
) WITHOUT ROWID;
INSERT INTO story_doc_freq_rebuilt (workspace_id, term, period, shard, docs)
    SELECT workspace_id, term, period, 0, docs FROM story_doc_freq;
DROP TABLE story_doc_freq;
ALTER TABLE story_doc_freq_rebuilt RENAME TO story_doc_freq;
CREATE INDEX story_doc_freq_period ON story_doc_freq (period);
