-- 0015: analytics from rollups (issue 42, docs/analytics.md). Every funnel, series and experiment
-- result used to scan the events behind it, so its price grew with the app's history. Now:
--
-- * event_rollup_queue: every event inserted (the trigger fires only for a row really inserted, so
--   a retried event is queued once) waits here until the rollup job folds it into the tables below
--   and deletes its queue row in the same transaction: nothing is counted twice or missed, whatever
--   order concurrent writers commit in. The events already stored are queued here, so the job
--   backfills them.
-- * funnel_rollups / revenue_rollups: counts, revenue per currency and a sketch of distinct
--   subscribers per paywall, version, placement ('' for none), environment, event name and UTC hour
--   and day (`span` is the bucket's length in ms, `bucket` its start).
-- * experiment_subscribers: what each subscriber of a variant has done (`seen`: 1 opened the paywall,
--   2 completed a purchase; the row itself means exposed), so experiment_rollups' counts of
--   distinct subscribers and conversions are exact and move only when a subscriber's state does.
CREATE TABLE event_rollup_queue (
    seq      INTEGER PRIMARY KEY,
    app_id   TEXT NOT NULL,
    event_id TEXT NOT NULL
) STRICT;
CREATE INDEX event_rollup_queue_by_app ON event_rollup_queue (app_id, seq);
CREATE TRIGGER events_enqueue_rollup AFTER INSERT ON events BEGIN
    INSERT INTO event_rollup_queue (app_id, event_id) VALUES (NEW.app_id, NEW.id);
END;
INSERT INTO event_rollup_queue (app_id, event_id) SELECT app_id, id FROM events ORDER BY rowid;

CREATE TABLE funnel_rollups (
    app_id      TEXT NOT NULL,
    paywall_id  TEXT NOT NULL,
    span        INTEGER NOT NULL CHECK (span IN (3600000, 86400000)),
    bucket      INTEGER NOT NULL,
    version     INTEGER NOT NULL,
    placement   TEXT NOT NULL,
    environment TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    name        TEXT NOT NULL,
    events      INTEGER NOT NULL CHECK (events >= 0),
    subscribers BLOB,
    PRIMARY KEY (app_id, paywall_id, span, bucket, version, placement, environment, name)
) STRICT;

CREATE TABLE revenue_rollups (
    app_id      TEXT NOT NULL,
    paywall_id  TEXT NOT NULL,
    span        INTEGER NOT NULL CHECK (span IN (3600000, 86400000)),
    bucket      INTEGER NOT NULL,
    version     INTEGER NOT NULL,
    placement   TEXT NOT NULL,
    environment TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    currency    TEXT NOT NULL,
    amount      REAL NOT NULL,
    purchases   INTEGER NOT NULL CHECK (purchases >= 0),
    PRIMARY KEY (app_id, paywall_id, span, bucket, version, placement, environment, currency)
) STRICT;

CREATE TABLE experiment_subscribers (
    app_id        TEXT NOT NULL,
    experiment_id TEXT NOT NULL,
    variant       TEXT NOT NULL,
    environment   TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    subscriber_id TEXT NOT NULL,
    seen          INTEGER NOT NULL CHECK (seen BETWEEN 0 AND 3),
    PRIMARY KEY (app_id, experiment_id, variant, environment, subscriber_id)
) STRICT, WITHOUT ROWID;
-- A subscriber's erasure finds their rows.
CREATE INDEX experiment_subscribers_by_subscriber ON experiment_subscribers (app_id, subscriber_id);

CREATE TABLE experiment_rollups (
    app_id            TEXT NOT NULL,
    experiment_id     TEXT NOT NULL,
    variant           TEXT NOT NULL,
    environment       TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    impressions       INTEGER NOT NULL,
    subscribers       INTEGER NOT NULL,
    converted         INTEGER NOT NULL,
    exposed           INTEGER NOT NULL,
    exposed_converted INTEGER NOT NULL,
    PRIMARY KEY (app_id, experiment_id, variant, environment)
) STRICT;

CREATE TABLE experiment_revenue_rollups (
    app_id        TEXT NOT NULL,
    experiment_id TEXT NOT NULL,
    variant       TEXT NOT NULL,
    environment   TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    currency      TEXT NOT NULL,
    amount        REAL NOT NULL,
    purchases     INTEGER NOT NULL,
    PRIMARY KEY (app_id, experiment_id, variant, environment, currency)
) STRICT;
