-- 0016: how long an app's raw events are kept (docs/analytics.md, "Retention"). NULL: the server's
-- `events.retentionDays`. The retention job deletes an app's events older than that, in chunks
-- (`events.retentionChunk` rows per transaction), through `events_by_hour`; the rollups stay.
ALTER TABLE apps ADD COLUMN event_retention_days INTEGER
    CHECK (event_retention_days IS NULL OR event_retention_days BETWEEN 1 AND 36500);
