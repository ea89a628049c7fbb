-- The document frequencies entry by entry, as PostgreSQL's view of the
-- same name lists them (there a small workspace's are kept a row per
-- save, its migration 0030; SQLite keeps them all in story_doc_freq):
-- for SQL reading them, and tests on both databases.
CREATE VIEW story_doc_freq_entries AS
    SELECT workspace_id, period, term, shard, docs FROM story_doc_freq;
