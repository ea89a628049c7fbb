-- Full-text search over feed articles: a tsvector per article (title
-- weighted A, summary B, body C) with a GIN index, queried with
-- websearch_to_tsquery and ranked with ts_rank_cd. A trigger computes it
-- inside the writing statement itself (a poll's batched INSERT included),
-- so the save path sends nothing more; it runs only when the text
-- changes, not on bookkeeping updates of other columns. The lengths are
-- cut so that no article, however long, exceeds the tsvector size limit
-- (1 MB of lexemes): the first 200 000 characters of a body are searchable.
ALTER TABLE feed_articles ADD COLUMN search_vector tsvector;

CREATE FUNCTION feed_articles_search_vector() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.search_vector :=
        setweight(to_tsvector('english'::regconfig, left(NEW.title, 2000)), 'A') ||
        setweight(to_tsvector('english'::regconfig, left(NEW.summary, 20000)), 'B') ||
        setweight(to_tsvector('english'::regconfig, left(NEW.content_markdown, 200000)), 'C');
    RETURN NEW;
END
$$;

CREATE TRIGGER feed_articles_search_vector BEFORE INSERT OR UPDATE OF title, summary, content_markdown
    ON feed_articles FOR EACH ROW EXECUTE FUNCTION feed_articles_search_vector();

-- Articles stored before this version (the trigger fills search_vector).
UPDATE feed_articles SET title = title;

CREATE INDEX feed_articles_search ON feed_articles USING GIN (search_vector);

-- A read-only token reads what its scope allows and changes nothing: the
-- REST API refuses it every write, the MCP server its write tools.
ALTER TABLE api_tokens ADD COLUMN read_only BOOLEAN NOT NULL DEFAULT FALSE;

-- Search results say whether each article was promoted: a look-up by
-- article (content_items_article, made with the stories in 0005).
