-- An article whose body is its feed summary (extraction_method
-- 'summary_degraded') keeps that text once, in content_markdown, with an
-- empty summary that reads back as the body. The search index then holds
-- it once too, weighted as a summary (B) rather than as a body (C).
CREATE OR REPLACE FUNCTION feed_articles_search_vector() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.search_vector :=
        setweight(to_tsvector('english'::regconfig, left(NEW.title, 2000)), 'A') ||
        setweight(to_tsvector('english'::regconfig, left(NEW.summary, 20000)), 'B') ||
        setweight(to_tsvector('english'::regconfig, left(NEW.content_markdown, 200000)),
            CASE WHEN NEW.summary = '' AND NEW.extraction_method = 'summary_degraded' THEN 'B' ELSE 'C' END::"char");
    RETURN NEW;
END
$$;

DROP TRIGGER feed_articles_search_vector ON feed_articles;
CREATE TRIGGER feed_articles_search_vector BEFORE INSERT OR UPDATE OF title, summary, content_markdown, extraction_method
    ON feed_articles FOR EACH ROW EXECUTE FUNCTION feed_articles_search_vector();
