-- 0008: as SQLite's 0010, time-windowed funnels find their events through the hour of
-- `occurred_at`: entries of one hour are appended in insertion order instead of landing on a page
-- of the index's recent end per event (an SDK batch spans seconds to minutes of timestamps).
DROP INDEX events_by_time;
CREATE INDEX events_by_hour ON events (app_id, paywall_id, (occurred_at / 3600000));
