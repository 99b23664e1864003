-- 0010: time-windowed funnels find their events through the hour of `occurred_at`, not the exact
-- millisecond.
--
-- An SDK's batch holds events from the last seconds or minutes of one device, so concurrent
-- batches interleave timestamps across that whole span: keyed by the exact time, every new entry of
-- events_by_time landed on a different page of the index's recent end, and each commit wrote about
-- one page per event (the WAL frame, then the checkpoint). Keyed by the hour, entries of one hour
-- are kept in insertion order, so new ones are appended to the end of the current hour's run — a
-- few pages per commit. Queries add `occurred_at / 3600000` bounds (SQLiteEventStore.filtered)
-- and still filter the exact milliseconds.
DROP INDEX events_by_time;
CREATE INDEX events_by_hour ON events (app_id, paywall_id, occurred_at / 3600000);
