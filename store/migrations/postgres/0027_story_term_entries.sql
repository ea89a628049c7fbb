-- The term index entry by entry, terms unsigned: PostgreSQL keeps a row
-- per entry with the term as the INTEGER of its 32 bits (0025); SQLite
-- keeps a row per article (its migration 0029) and the same view. For
-- SQL reading the index, and tests on both databases.
CREATE VIEW story_term_entries AS
    SELECT workspace_id, CAST(term AS BIGINT) & 4294967295 AS term, reported_unix, feed_article_id, story_id
    FROM story_terms;
