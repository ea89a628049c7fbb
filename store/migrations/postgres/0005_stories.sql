-- Stories, reliability tiers and freshness.
--
-- A story is the articles of one workspace that report the same news,
-- near-duplicates across sources (see docs/digest.md). Every article
-- belongs to one; articles stored before this version become stories of
-- their own. A story never merges with another, so its id stays stable.

-- Freshness: how fast a workspace's articles age (fast 0.3, moderate 0.1,
-- stable 0.02 a year). story_generation counts the polls that placed
-- articles in stories: a poll that looked up its candidates at one
-- generation and finds another when it saves looks them up again.
ALTER TABLE workspaces
    ADD COLUMN decay_class TEXT NOT NULL DEFAULT 'moderate' CHECK (decay_class IN ('fast', 'moderate', 'stable')),
    ADD COLUMN story_generation BIGINT NOT NULL DEFAULT 0;

-- Reliability tier 1 (official) to 5 (general web): from the domain rules
-- unless set by hand (reliability_tier_manual). decay_class NULL takes the
-- workspace's.
ALTER TABLE feed_sources
    ADD COLUMN reliability_tier SMALLINT NOT NULL DEFAULT 5 CHECK (reliability_tier BETWEEN 1 AND 5),
    ADD COLUMN reliability_tier_manual BOOLEAN NOT NULL DEFAULT FALSE,
    ADD COLUMN decay_class TEXT CHECK (decay_class IN ('fast', 'moderate', 'stable'));

CREATE TABLE stories (
    id                BIGSERIAL PRIMARY KEY,
    workspace_id      BIGINT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    -- the earliest reported article (ties: the lower id): the first reporter
    first_article_id  BIGINT REFERENCES feed_articles(id) ON DELETE SET NULL,
    first_reported_at TIMESTAMPTZ NOT NULL,
    last_reported_at  TIMESTAMPTZ NOT NULL,
    article_count     INTEGER NOT NULL DEFAULT 1,
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX stories_ws_last ON stories (workspace_id, last_reported_at);
CREATE INDEX stories_first_article ON stories (first_article_id);

-- reported_at: when the article counts as reported (its publication time
-- unless missing or later than when it was stored, else when it was
-- stored). story_signature: its MinHash signature (stories.Signature,
-- 1 285 bytes), NULL when stored before this version or too short to
-- compare. extractive_summary: a few of its own sentences (summary keeps
-- the feed's description).
ALTER TABLE feed_articles
    ADD COLUMN story_id BIGINT REFERENCES stories(id) ON DELETE SET NULL,
    ADD COLUMN reported_at TIMESTAMPTZ,
    ADD COLUMN story_signature BYTEA,
    ADD COLUMN extractive_summary TEXT NOT NULL DEFAULT '';
UPDATE feed_articles SET reported_at =
    CASE WHEN published_at IS NOT NULL AND published_at <= created_at THEN published_at ELSE created_at END;
INSERT INTO stories (workspace_id, first_article_id, first_reported_at, last_reported_at, article_count, created_at)
    SELECT workspace_id, id, reported_at, reported_at, 1, created_at FROM feed_articles ORDER BY id;
UPDATE feed_articles a SET story_id = s.id FROM stories s WHERE s.first_article_id = a.id;
CREATE INDEX feed_articles_story ON feed_articles (story_id);
-- digests: a workspace's articles reported in a window
CREATE INDEX feed_articles_ws_reported ON feed_articles (workspace_id, reported_at);
-- digest gaps: a source's newest article and its count in a window
CREATE INDEX feed_articles_source_created ON feed_articles (feed_source_id, created_at);

ALTER TABLE content_items ADD COLUMN story_id BIGINT REFERENCES stories(id) ON DELETE SET NULL;
UPDATE content_items c SET story_id = a.story_id FROM feed_articles a WHERE a.id = c.feed_article_id;
CREATE INDEX content_items_story ON content_items (story_id);
-- digests join content items to their articles (and deleting an article
-- finds its content item by it)
CREATE INDEX content_items_article ON content_items (feed_article_id);

-- The band keys of each article's signature (at most 40): finding a new
-- article's candidates is one index range scan per key, newest first,
-- whatever the size of the archive. reported_unix is the article's
-- reported_at in seconds since the Unix epoch. Rows older than the story
-- window are pruned.
CREATE TABLE story_bands (
    workspace_id    BIGINT NOT NULL,
    band_key        BIGINT NOT NULL,
    reported_unix   BIGINT NOT NULL,
    feed_article_id BIGINT NOT NULL REFERENCES feed_articles(id) ON DELETE CASCADE,
    PRIMARY KEY (workspace_id, band_key, reported_unix, feed_article_id)
);
CREATE INDEX story_bands_article ON story_bands (feed_article_id);
CREATE INDEX story_bands_reported ON story_bands (reported_unix);
