-- Stories group independent reports of one event (see docs/digest.md).
-- The near-copy band index gives way to a term index, and each story
-- keeps its centroid.
--
-- story_bands and the workspace's story_generation go: placement no
-- longer looks up band keys, and saves of one workspace no longer queue
-- on one row. feed_articles.story_signature is no longer written; it is
-- kept, as in SQLite, and stays NULL for new articles.
DROP TABLE story_bands;
ALTER TABLE workspaces DROP COLUMN story_generation;

-- centroid: the story's summed article profiles in stored form
-- (stories.EncodeCentroid), NULL for stories from before this version,
-- which take no new articles. revision counts the writes of the row: a
-- save that read a story at one revision writes it only at that revision.
-- article_count is kept in place by every save.
ALTER TABLE stories
    ADD COLUMN centroid BYTEA,
    ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;

-- The term index: each article's highest-weighted terms (at most 12) with
-- its story at the time it was filed (a story merged away since is
-- followed through stories.merged_into). A new article's candidates are
-- one index range scan per term, newest first. reported_unix is the
-- article's reported_at in seconds; rows older than the story window are
-- pruned.
CREATE TABLE story_terms (
    workspace_id    BIGINT NOT NULL,
    term            BIGINT NOT NULL,
    reported_unix   BIGINT NOT NULL,
    feed_article_id BIGINT NOT NULL REFERENCES feed_articles(id) ON DELETE CASCADE,
    story_id        BIGINT NOT NULL,
    PRIMARY KEY (workspace_id, term, reported_unix, feed_article_id)
);
CREATE INDEX story_terms_article ON story_terms (feed_article_id);
CREATE INDEX story_terms_reported ON story_terms (reported_unix);

-- Document frequencies over a workspace's recent archive, by week of
-- report (Unix weeks: model.StoryPeriod): how many articles reported that
-- week have the term.
-- Term 0 (no feature hashes to it) counts the articles themselves. A save
-- adds its articles' counts; a read sums the weeks of the window; weeks
-- older than the window are pruned. No recount ever.
CREATE TABLE story_doc_freq (
    workspace_id BIGINT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    term         BIGINT NOT NULL,
    period       BIGINT NOT NULL,
    docs         BIGINT NOT NULL,
    PRIMARY KEY (workspace_id, term, period)
);
CREATE INDEX story_doc_freq_period ON story_doc_freq (period);

-- A merge points the stories merged into the merged-away one at the
-- survivor: found by this index, not by reading every story.
CREATE INDEX stories_merged_into ON stories (merged_into) WHERE merged_into IS NOT NULL;
