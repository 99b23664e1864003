-- 0018 (issue 42): events partitioned by the UTC month of occurred_at, so retention drops a month's
-- partition instead of deleting its rows one by one (docs/analytics.md, "Retention").
--
-- * A partitioned table's unique keys must hold its partition key: an event is identified by
--   (app_id, id, occurred_at) here. A retried event (our SDKs send a stored event again unchanged)
--   is still stored once; an id sent again with another timestamp is another event on PostgreSQL.
-- * events_YYYY_MM holds [that month's first millisecond, the next month's); events_other (the
--   default partition) holds any event of a month without a partition yet. xizor_event_partitions
--   creates the months of a range (the retention job keeps the ingest window's months ready, so
--   events_other stays empty), moving such rows out of events_other first.
-- * The rollup queue names the row it waits for with occurred_at too, so the fold's join reaches
--   one partition and one row.
ALTER TABLE event_rollup_queue ADD COLUMN occurred_at BIGINT;
UPDATE event_rollup_queue q SET occurred_at = e.occurred_at FROM events e WHERE e.app_id = q.app_id AND e.id = q.event_id;
DELETE FROM event_rollup_queue WHERE occurred_at IS NULL;
ALTER TABLE event_rollup_queue ALTER COLUMN occurred_at SET NOT NULL;

ALTER TABLE events RENAME TO events_0017;
ALTER INDEX events_pkey RENAME TO events_0017_pkey;
DROP TRIGGER events_enqueue_rollup ON events_0017;
DROP INDEX events_by_hour;
DROP INDEX events_by_subscriber;
DROP INDEX events_presentations;

CREATE TABLE events (
    app_id        TEXT NOT NULL REFERENCES apps (id),
    id            TEXT NOT NULL CHECK (char_length(id) BETWEEN 1 AND 200),
    name          TEXT NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
    occurred_at   BIGINT NOT NULL,
    received_at   BIGINT NOT NULL,
    placement     TEXT,
    paywall_id    TEXT,
    version       BIGINT CHECK (version IS NULL OR version >= 1),
    subscriber_id TEXT,
    context       JSONB CHECK (context IS NULL OR jsonb_typeof(context) = 'object'),
    properties    JSONB CHECK (properties IS NULL OR jsonb_typeof(properties) = 'object'),
    experiment_id TEXT,
    variant       TEXT,
    environment   TEXT NOT NULL DEFAULT 'production' CHECK (environment IN ('production', 'sandbox')),
    PRIMARY KEY (app_id, id, occurred_at),
    FOREIGN KEY (app_id, paywall_id) REFERENCES paywalls (app_id, id)
) PARTITION BY RANGE (occurred_at);
CREATE TABLE events_other PARTITION OF events DEFAULT;

-- Creates the monthly partitions of every UTC month from first_ms's to last_ms's that has none;
-- answers how many it created. Rows of such a month already in events_other move into it.
CREATE FUNCTION xizor_event_partitions(first_ms BIGINT, last_ms BIGINT) RETURNS INTEGER LANGUAGE plpgsql AS $$
DECLARE
    month TIMESTAMP := date_trunc('month', to_timestamp(first_ms / 1000.0) AT TIME ZONE 'UTC');
    last_month TIMESTAMP := date_trunc('month', to_timestamp(last_ms / 1000.0) AT TIME ZONE 'UTC');
    partition TEXT;
    low BIGINT;
    high BIGINT;
    created INTEGER := 0;
BEGIN
    -- Replicas run the retention job too: one at a time creates or drops partitions.
    PERFORM pg_advisory_xact_lock(hashtext('xizor event partitions'));
    -- Attaching locks the default partition (inserts of months without one wait): as for drops.
    PERFORM set_config('lock_timeout', '200ms', true);
    WHILE month <= last_month LOOP
        partition := 'events_' || to_char(month, 'YYYY_MM');
        IF to_regclass(partition) IS NULL THEN
            low := (extract(epoch FROM month AT TIME ZONE 'UTC') * 1000)::BIGINT;
            high := (extract(epoch FROM (month + interval '1 month') AT TIME ZONE 'UTC') * 1000)::BIGINT;
            EXECUTE format('CREATE TABLE %I (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', partition);
            EXECUTE format('INSERT INTO %I SELECT * FROM events_other WHERE occurred_at >= %s AND occurred_at < %s',
                           partition, low, high);
            EXECUTE format('DELETE FROM events_other WHERE occurred_at >= %s AND occurred_at < %s', low, high);
            EXECUTE format('ALTER TABLE events ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)', partition, low, high);
            created := created + 1;
        END IF;
        month := month + interval '1 month';
    END LOOP;
    RETURN created;
END
$$;

-- Drops every monthly partition whose month ended at or before before_ms; answers their names.
CREATE FUNCTION xizor_drop_event_partitions(before_ms BIGINT) RETURNS SETOF TEXT LANGUAGE plpgsql AS $$
DECLARE
    partition TEXT;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('xizor event partitions'));
    -- Dropping a partition locks the whole table: wait for running reads of it at most 200 ms (while
    -- it waits, new reads and inserts queue behind it), else fail this pass; the next hour retries.
    PERFORM set_config('lock_timeout', '200ms', true);
    FOR partition IN
        SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'events'::regclass AND c.relname ~ '^events_[0-9]{4}_[0-9]{2}$' ORDER BY c.relname
    LOOP
        IF (extract(epoch FROM (to_date(substr(partition, 8), 'YYYY_MM')::TIMESTAMP + interval '1 month')
                AT TIME ZONE 'UTC') * 1000)::BIGINT <= before_ms THEN
            EXECUTE format('DROP TABLE %I', partition);
            RETURN NEXT partition;
        END IF;
    END LOOP;
END
$$;

SELECT xizor_event_partitions(min(occurred_at), max(occurred_at)) FROM events_0017 HAVING count(*) > 0;
RESET lock_timeout;  -- the function's 200 ms is for the job, not for the rest of this migration
INSERT INTO events SELECT app_id, id, name, occurred_at, received_at, placement, paywall_id, version, subscriber_id,
    context, properties, experiment_id, variant, environment FROM events_0017;
DROP TABLE events_0017;

CREATE INDEX events_by_hour ON events (app_id, paywall_id, (occurred_at / 3600000));
CREATE INDEX events_by_subscriber ON events (app_id, subscriber_id, occurred_at) WHERE subscriber_id IS NOT NULL;
CREATE INDEX events_presentations ON events (app_id, subscriber_id, placement, paywall_id, occurred_at) WHERE name = 'paywall_open';

CREATE OR REPLACE FUNCTION events_enqueue_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO event_rollup_queue (app_id, event_id, occurred_at) SELECT app_id, id, occurred_at FROM inserted;
    RETURN NULL;
END
$$;
CREATE TRIGGER events_enqueue_rollup AFTER INSERT ON events REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION events_enqueue_rollup();
