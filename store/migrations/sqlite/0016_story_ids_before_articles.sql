-- A save inserts its articles with the ids reserved for the stories it
-- starts and writes those stories' rows afterwards, with the references
-- to stories deferred to the commit (PRAGMA defer_foreign_keys). While a
-- deferred reference is unresolved, SQLite checks every row inserted into
-- a referenced table against the tables that reference it, to see
-- whether the new row resolves one: an article is looked up in
-- previous_article_id, which had no index, so each inserted article read
-- the whole table. The index makes it a lookup (and deleting an article,
-- which sets the references to it to NULL, too).
CREATE INDEX feed_articles_previous ON feed_articles (previous_article_id) WHERE previous_article_id IS NOT NULL;
