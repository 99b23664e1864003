-- As SQLite's 0016: how long an app's raw events are kept (NULL: the server's `events.retentionDays`).
ALTER TABLE apps ADD COLUMN event_retention_days BIGINT
    CHECK (event_retention_days IS NULL OR event_retention_days BETWEEN 1 AND 36500);
