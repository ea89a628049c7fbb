-- A workspace's document frequencies are a row per term and week, a few
-- per article saved when every source has a workspace of its own. Each
-- row kept four 8-byte numbers and a shard: 58 bytes of values, 64 with
-- alignment, and 40-byte entries in its primary key. None of them needs
-- eight bytes but the workspace: a term is a 32-bit hash (stored as the
-- INTEGER of the same bits, so terms of 2^31 and above read back
-- negative in SQL; the store converts both ways), a period a week since
-- 1970, a count the articles of one workspace with the term reported in
-- one week (one shard's, for the article count). In INTEGERs a row is 48
-- bytes and a key entry 32.
ALTER TABLE story_doc_freq
    ALTER COLUMN term TYPE INTEGER USING (CASE WHEN term >= 2147483648 THEN term - 4294967296 ELSE term END)::integer,
    ALTER COLUMN period TYPE INTEGER,
    ALTER COLUMN docs TYPE INTEGER;
