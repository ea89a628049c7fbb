-- The search vector comes from the daemon: it reads each article into
-- lexemes (title A, summary B, body C or B as before) and the INSERT
-- writes them as a tsvector literal, which PostgreSQL reads far more
-- cheaply than it parses the text. Queries are made of lexemes by the
-- same code, so both sides agree by construction.
DROP TRIGGER feed_articles_search_vector ON feed_articles;
DROP FUNCTION feed_articles_search_vector();

-- search_lexemes says who made a row's vector: 0 PostgreSQL's text
-- parser (the rows stored so far: adding the column with a constant
-- default rewrites no row), 1 the daemon (every row from now on). The
-- daemon recomputes the rows left at 0 in batches (store.IndexSearchText),
-- and those whose vector is missing: a row written by an older binary,
-- or one whose text was changed by hand (the trigger below).
ALTER TABLE feed_articles ADD COLUMN search_lexemes SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE feed_articles ALTER COLUMN search_lexemes SET DEFAULT 1;

-- The rows to recompute, found without reading the table; empty once
-- they are done, so it costs nothing afterwards.
CREATE INDEX feed_articles_search_pending ON feed_articles (id)
    WHERE search_vector IS NULL OR search_lexemes < 1;

-- A text changed by an UPDATE that does not also set the vector leaves
-- the vector to be recomputed, rather than stale. The daemon never
-- changes an article's text; this runs on no INSERT.
CREATE FUNCTION feed_articles_search_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.search_vector := NULL;
    RETURN NEW;
END
$$;

CREATE TRIGGER feed_articles_search_stale BEFORE UPDATE OF title, summary, content_markdown, extraction_method
    ON feed_articles FOR EACH ROW
    WHEN (NEW.search_vector IS NOT DISTINCT FROM OLD.search_vector
        AND (NEW.title, NEW.summary, NEW.content_markdown, NEW.extraction_method)
            IS DISTINCT FROM (OLD.title, OLD.summary, OLD.content_markdown, OLD.extraction_method))
    EXECUTE FUNCTION feed_articles_search_stale();
