-- How an article's row is stored, to cost its save less server time and
-- fewer bytes; nothing stored or searched changes, and no row is
-- rewritten: each setting applies to the rows written from now on.

-- The full-text index takes a save's entries into its pending list and
-- moves them into the index when the list is full. A list of 4 MB (the
-- default) leaves that many emptied pages behind each time, until a
-- vacuum recycles them, and every search reads the whole list; one of
-- 256 kB is emptied as cheaply per entry and leaves a sixteenth of that.
ALTER INDEX feed_articles_search SET (gin_pending_list_limit = 256);

-- A search vector and a story profile are lexemes and numbers, which
-- pglz gives up compressing after trying: they are stored as they are,
-- the vector out of line as before, without the attempt.
ALTER TABLE feed_articles
    ALTER COLUMN search_vector SET STORAGE EXTERNAL,
    ALTER COLUMN story_profile SET STORAGE EXTERNAL;

-- The text is compressed with lz4 where the server was built with it
-- (the methods it offers are the values of default_toast_compression),
-- several times faster than pglz for a few per cent more bytes; a server
-- without it keeps pglz.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings
               WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
        ALTER TABLE feed_articles
            ALTER COLUMN content_markdown SET COMPRESSION lz4,
            ALTER COLUMN summary SET COMPRESSION lz4,
            ALTER COLUMN extractive_summary SET COMPRESSION lz4;
    END IF;
END
$$;
