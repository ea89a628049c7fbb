-- Token counts of each article in the o200k_base encoding (GPT-4o and
-- later), beside the cl100k_base counts of input_tokens/output_tokens.
-- Rows stored before this version keep 0: not counted.
ALTER TABLE feed_articles ADD COLUMN input_tokens_o200k INTEGER NOT NULL DEFAULT 0;
ALTER TABLE feed_articles ADD COLUMN output_tokens_o200k INTEGER NOT NULL DEFAULT 0;
