-- The term index kept two secondary indexes beside its primary key: one
-- on feed_article_id (an article's entries: re-examination's member read,
-- moves, the delete trigger) and one on reported_unix (the prune). Every
-- entry a save inserts went into both: a third of the statement's index
-- work, and about 250 bytes per article. One index on (reported_unix,
-- feed_article_id) serves all of them: the prune reads it by its leading
-- column, and an article's entries, which all carry its reported time,
-- are one short range of it. Its twelve entries per article share one
-- key, which PostgreSQL stores once with a list of rows (deduplication).
--
-- An article's reported_unix is its reported_at in seconds as the save
-- computed it; the column reported_at holds that time rounded to
-- microseconds, so the seconds read back from it can be one more than
-- the entries' (a time within half a microsecond below a second).
-- Lookups by article therefore read the two seconds up to
-- floor(reported_at).
CREATE INDEX story_terms_reported_article ON story_terms (reported_unix, feed_article_id);
DROP INDEX story_terms_article;
DROP INDEX story_terms_reported;

CREATE OR REPLACE FUNCTION story_terms_forget_articles() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM story_terms t USING gone g
        WHERE t.feed_article_id = g.id
        AND t.reported_unix BETWEEN FLOOR(EXTRACT(EPOCH FROM g.reported_at))::bigint - 1
            AND FLOOR(EXTRACT(EPOCH FROM g.reported_at))::bigint;
    RETURN NULL;
END
$$;
