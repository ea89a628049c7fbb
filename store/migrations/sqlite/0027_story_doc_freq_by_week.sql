-- The document frequencies are kept week first. A save adds to the rows
-- of the few hundred terms of its articles: ordered by term, those rows
-- lay on nearly every page of the table (381 of its pages written per
-- save of 20 articles at 100 000 archived), ordered by week they lie
-- together on the current week's few dozen. Saves read the frequencies
-- from the process's copy of them (store/storycopy.go), which loads
-- a workspace's weeks in this order, so nothing reads a term across weeks
-- any more. A primary key cannot be altered in place: the table is
-- rebuilt. Nothing references it.
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
