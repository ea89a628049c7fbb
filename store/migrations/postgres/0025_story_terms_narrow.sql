-- The term index is a dozen rows per article, more than any other table
-- holds. Each kept five 8-byte numbers: 64 bytes a row with its header,
-- and 40-byte primary key entries (48 with their own header). A term is a
-- 32-bit hash, which fits an INTEGER as story_doc_freq keeps it (0024:
-- the INTEGER of the same bits, so terms of 2^31 and above read back
-- negative in SQL; the store converts both ways), and a workspace id an
-- INTEGER too: ids are handed out one per workspace, which no deployment
-- creates two billion of, and one past the range fails the save rather
-- than being stored wrong. In INTEGERs a row is 56 bytes and a key entry
-- 32; the reported time and the article and story ids keep 8 bytes.
ALTER TABLE story_terms
    ALTER COLUMN workspace_id TYPE INTEGER,
    ALTER COLUMN term TYPE INTEGER USING (CASE WHEN term >= 2147483648 THEN term - 4294967296 ELSE term END)::integer;
