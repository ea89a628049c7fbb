-- Re-examination (mirrors ../postgres; see docs/digest.md): after a poll
-- the save looks again at the most recently reported members of the
-- stories the poll changed or looked up, and moves an article that now
-- belongs to another story.
--
-- story_profile: the article's profile in stored form
-- (stories.EncodeProfile), written with the article; NULL for articles
-- stored before this version, which are not re-examined.
ALTER TABLE feed_articles ADD COLUMN story_profile BLOB;

-- A story's most recent members, and its first and last reporter after
-- an article left it, are one index range scan whatever the story's
-- size (reported_at is compared as julianday, as elsewhere; the rowid,
-- the article id, ends every index). The index on story_id alone is a
-- prefix of this one.
CREATE INDEX feed_articles_story_reported ON feed_articles (story_id, julianday(reported_at));
DROP INDEX feed_articles_story;
