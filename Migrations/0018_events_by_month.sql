-- 0018: PostgreSQL partitions events by month (postgres/0018); SQLite keeps one table, deleting
-- due events in chunks. Both queues now name the row they wait for with its occurred_at, so the
-- fold's join is the same text on both: (app_id, event_id, occurred_at).
ALTER TABLE event_rollup_queue ADD COLUMN occurred_at INTEGER;
UPDATE event_rollup_queue SET occurred_at = (
    SELECT e.occurred_at FROM events e WHERE e.app_id = event_rollup_queue.app_id AND e.id = event_rollup_queue.event_id);
DELETE FROM event_rollup_queue WHERE occurred_at IS NULL;
DROP TRIGGER events_enqueue_rollup;
CREATE TRIGGER events_enqueue_rollup AFTER INSERT ON events BEGIN
    INSERT INTO event_rollup_queue (app_id, event_id, occurred_at) VALUES (NEW.app_id, NEW.id, NEW.occurred_at);
END;
