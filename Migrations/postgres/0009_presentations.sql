-- 0009: as SQLite's 0011, a frequency cap reads at most `count` events of one subscriber: the
-- subscriber's `paywall_open` entries on a placement and paywall, newest last, read with `LIMIT`.
CREATE INDEX events_presentations ON events (app_id, subscriber_id, placement, paywall_id, occurred_at) WHERE name = 'paywall_open';
