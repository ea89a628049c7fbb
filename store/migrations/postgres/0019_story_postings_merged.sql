-- Reading the term index follows each entry's story through
-- stories.merged_into. Most stories are never merged, yet that join read
-- a story's row (its centroid beside it) per entry: a few thousand rows
-- of stories a poll, most of the index read's time. This index holds the
-- merged stories only, small and cached, so an entry of a story that was
-- never merged is settled by it without reading stories.
CREATE INDEX stories_merged_id ON stories (id) INCLUDE (merged_into) WHERE merged_into IS NOT NULL;

-- A save adds to the document frequencies of every feature of its
-- articles: mostly updates of this week's rows. Room left on each page
-- lets an update stay on its page (a heap-only tuple), without new
-- entries in the table's two indexes; full pages made half of them move.
ALTER TABLE story_doc_freq SET (fillfactor = 70);

-- An article's term index entries go with it, as before, but by a
-- trigger on the articles deleted rather than by a reference checked for
-- every entry inserted: a save inserts 12 entries per article, each of
-- which the reference looked its article up for (and locked it), while
-- articles are deleted rarely, and in bulk. (SQLite keeps its reference:
-- there the check is a lookup in the process, a small part of the insert,
-- and dropping a reference means rebuilding the table.)
ALTER TABLE story_terms DROP CONSTRAINT story_terms_feed_article_id_fkey;
CREATE FUNCTION story_terms_forget_articles() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM story_terms WHERE feed_article_id IN (SELECT id FROM gone);
    RETURN NULL;
END
$$;
CREATE TRIGGER feed_articles_story_terms AFTER DELETE ON feed_articles
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION story_terms_forget_articles();
