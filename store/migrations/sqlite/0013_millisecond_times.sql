-- Times are stored to the millisecond from now on (the store truncates
-- every time it writes). Before, the driver wrote nanoseconds, and SQLite
-- builds disagree on julianday() of such text: 3.40 (Debian's sqlite3,
-- Python's module) rounds fractions of .9995 s and above otherwise than
-- the daemon's build. An index on julianday(column) written by one build
-- then lacks the entries another build looks for: about one row in two
-- thousand seemed missing from the due index, and another client's
-- UPDATE of such a row failed with "database disk image is malformed".
-- With at most three fraction digits every build computes the same value.
--
-- The columns rewritten are those of the julianday() indexes, and
-- websub_subscriptions.next_request_at, which a claim compares for
-- equality with the value it read. Each index is dropped first (an
-- index another build already made inconsistent would fail the UPDATE)
-- and built again afterwards, by this build, from the rewritten text.
DROP INDEX feed_sources_due;
UPDATE feed_sources SET next_poll_at = strftime('%Y-%m-%d %H:%M:%f', next_poll_at) || '+00:00'
    WHERE next_poll_at GLOB '*.[0-9][0-9][0-9][0-9]*';
CREATE INDEX feed_sources_due ON feed_sources (julianday(next_poll_at))
    WHERE is_active = 1 AND consecutive_failures < 10;

DROP INDEX stories_ws_last;
UPDATE stories SET last_reported_at = strftime('%Y-%m-%d %H:%M:%f', last_reported_at) || '+00:00'
    WHERE last_reported_at GLOB '*.[0-9][0-9][0-9][0-9]*';
CREATE INDEX stories_ws_last ON stories (workspace_id, julianday(last_reported_at));

DROP INDEX feed_articles_ws_reported;
DROP INDEX feed_articles_source_created;
UPDATE feed_articles SET reported_at = strftime('%Y-%m-%d %H:%M:%f', reported_at) || '+00:00'
    WHERE reported_at GLOB '*.[0-9][0-9][0-9][0-9]*';
UPDATE feed_articles SET created_at = strftime('%Y-%m-%d %H:%M:%f', created_at) || '+00:00'
    WHERE created_at GLOB '*.[0-9][0-9][0-9][0-9]*';
CREATE INDEX feed_articles_ws_reported ON feed_articles (workspace_id, julianday(reported_at));
CREATE INDEX feed_articles_source_created ON feed_articles (feed_source_id, julianday(created_at));

DROP INDEX webhook_deliveries_due;
UPDATE webhook_deliveries SET next_attempt_at = strftime('%Y-%m-%d %H:%M:%f', next_attempt_at) || '+00:00'
    WHERE next_attempt_at GLOB '*.[0-9][0-9][0-9][0-9]*';
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (julianday(next_attempt_at)) WHERE status = 'pending';

UPDATE websub_subscriptions SET next_request_at = strftime('%Y-%m-%d %H:%M:%f', next_request_at) || '+00:00'
    WHERE next_request_at GLOB '*.[0-9][0-9][0-9][0-9]*';
