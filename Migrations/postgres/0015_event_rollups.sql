-- As SQLite's 0015 (analytics from rollups, issue 42; docs/analytics.md). The queue is filled by a
-- statement-level trigger over the rows the INSERT really inserted (its transition table), so a
-- batch adds one trigger call, not one per event, and a retried event is queued once. The fold
-- deletes exactly the queue rows it read (never "up to a sequence"): PostgreSQL's writers commit
-- out of sequence order.
CREATE TABLE event_rollup_queue (
    seq      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id   TEXT NOT NULL,
    event_id TEXT NOT NULL
);
CREATE INDEX event_rollup_queue_by_app ON event_rollup_queue (app_id, seq);
-- A queue: every row is deleted soon after it is written. Vacuumed after every 10,000 dead rows
-- rather than at 20 % of the table, so reads of it (a report's queued events, the job's next pass)
-- never walk a backlog's worth of dead index entries.
ALTER TABLE event_rollup_queue SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 10000);
CREATE FUNCTION events_enqueue_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO event_rollup_queue (app_id, event_id) SELECT app_id, id FROM inserted;
    RETURN NULL;
END
$$;
CREATE TRIGGER events_enqueue_rollup AFTER INSERT ON events REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION events_enqueue_rollup();
INSERT INTO event_rollup_queue (app_id, event_id) SELECT app_id, id FROM events;

CREATE TABLE funnel_rollups (
    app_id      TEXT NOT NULL,
    paywall_id  TEXT NOT NULL,
    span        BIGINT NOT NULL CHECK (span IN (3600000, 86400000)),
    bucket      BIGINT NOT NULL,
    version     BIGINT NOT NULL,
    placement   TEXT NOT NULL,
    environment TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    name        TEXT NOT NULL,
    events      BIGINT NOT NULL CHECK (events >= 0),
    subscribers BYTEA,
    PRIMARY KEY (app_id, paywall_id, span, bucket, version, placement, environment, name)
);

CREATE TABLE revenue_rollups (
    app_id      TEXT NOT NULL,
    paywall_id  TEXT NOT NULL,
    span        BIGINT NOT NULL CHECK (span IN (3600000, 86400000)),
    bucket      BIGINT NOT NULL,
    version     BIGINT NOT NULL,
    placement   TEXT NOT NULL,
    environment TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    currency    TEXT NOT NULL,
    amount      DOUBLE PRECISION NOT NULL,
    purchases   BIGINT NOT NULL CHECK (purchases >= 0),
    PRIMARY KEY (app_id, paywall_id, span, bucket, version, placement, environment, currency)
);

CREATE TABLE experiment_subscribers (
    app_id        TEXT NOT NULL,
    experiment_id TEXT NOT NULL,
    variant       TEXT NOT NULL,
    environment   TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    subscriber_id TEXT NOT NULL,
    seen          BIGINT NOT NULL CHECK (seen BETWEEN 0 AND 3),
    PRIMARY KEY (app_id, experiment_id, variant, environment, subscriber_id)
);
CREATE INDEX experiment_subscribers_by_subscriber ON experiment_subscribers (app_id, subscriber_id);

CREATE TABLE experiment_rollups (
    app_id            TEXT NOT NULL,
    experiment_id     TEXT NOT NULL,
    variant           TEXT NOT NULL,
    environment       TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    impressions       BIGINT NOT NULL,
    subscribers       BIGINT NOT NULL,
    converted         BIGINT NOT NULL,
    exposed           BIGINT NOT NULL,
    exposed_converted BIGINT NOT NULL,
    PRIMARY KEY (app_id, experiment_id, variant, environment)
);

CREATE TABLE experiment_revenue_rollups (
    app_id        TEXT NOT NULL,
    experiment_id TEXT NOT NULL,
    variant       TEXT NOT NULL,
    environment   TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    currency      TEXT NOT NULL,
    amount        DOUBLE PRECISION NOT NULL,
    purchases     BIGINT NOT NULL,
    PRIMARY KEY (app_id, experiment_id, variant, environment, currency)
);
