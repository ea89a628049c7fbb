-- Why an article joined its story, in the stories side's words ('' when
-- it started the story), and the story a merged story was folded into
-- (NULL while it stands on its own): the save writes what the story
-- placement hands it.
ALTER TABLE feed_articles ADD COLUMN story_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE stories ADD COLUMN merged_into BIGINT NULL;
