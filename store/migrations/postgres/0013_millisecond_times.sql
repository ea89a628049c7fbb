-- SQLite's migration of the same number stores its times to the
-- millisecond. PostgreSQL keeps timestamptz (microseconds), which every
-- client reads alike: nothing to do here.
SELECT 1;
