-- Every save of a workspace adds its articles to the workspace's article
-- count of the week (story_doc_freq, term 0), so every save of the
-- workspace updated that one row and held its lock until it committed:
-- saves of one workspace that share no index term still committed one
-- after the other. The count is now kept in a few rows per week, a save
-- adding to the row of its source's shard (store.docFreqShards); a read
-- sums them, as it sums the weeks. The other terms keep shard 0: a
-- term's rows are read for every save that has the term, and splitting
-- them would multiply those reads, while saves meet on a term's row only
-- when their articles share the word.
ALTER TABLE story_doc_freq ADD COLUMN shard SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE story_doc_freq DROP CONSTRAINT story_doc_freq_pkey,
    ADD PRIMARY KEY (workspace_id, term, period, shard);
