-- The scheduler's per-source columns. schedule_mode: adaptive (the interval
-- learnt from what polls find, polling_interval_minutes its starting value)
-- or fixed (every polling_interval_minutes). schedule_state: the adaptive
-- estimate, opaque text written by the poller ('' = never polled).
-- next_poll_reason / next_poll_kind: why next_poll_at is when it is, in words
-- and as one of a closed set of kinds. hub_url / self_url: the WebSub hub and
-- topic the feed advertised at its last fetch. websub_subscribed_until: the
-- end of a verified WebSub subscription's lease; while it lies ahead, polls
-- fall back to the safety interval.
ALTER TABLE feed_sources
    ADD COLUMN schedule_mode TEXT NOT NULL DEFAULT 'adaptive' CHECK (schedule_mode IN ('adaptive', 'fixed')),
    ADD COLUMN schedule_state TEXT NOT NULL DEFAULT '',
    ADD COLUMN next_poll_reason TEXT NOT NULL DEFAULT '',
    ADD COLUMN next_poll_kind TEXT NOT NULL DEFAULT '',
    ADD COLUMN hub_url TEXT NOT NULL DEFAULT '',
    ADD COLUMN self_url TEXT NOT NULL DEFAULT '',
    ADD COLUMN websub_subscribed_until TIMESTAMPTZ;
