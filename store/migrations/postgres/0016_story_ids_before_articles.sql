-- A save knows every new article's story when it inserts the article: it
-- reserves the ids of the stories it starts, inserts the articles with
-- them, and writes those stories' rows afterwards, once it knows which of
-- the articles were inserted (the first of them is the story's first
-- reporter). The references to a story are therefore checked at commit,
-- when its row is there. ON DELETE SET NULL acts at once as before.
ALTER TABLE feed_articles ALTER CONSTRAINT feed_articles_story_id_fkey DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE content_items ALTER CONSTRAINT content_items_story_id_fkey DEFERRABLE INITIALLY DEFERRED;
