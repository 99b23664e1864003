-- 0008: targeting (docs/targeting.md). Named audiences, attributes stored per subscriber, frequency
-- caps on rules, and an index to count a subscriber's presentations (and delete a subscriber's
-- events in one call). An audience change is appended to the change feed as a 'placement' change:
-- both are the app's routing, re-read together.
CREATE TABLE audiences (
    app_id     TEXT NOT NULL REFERENCES apps (id),
    id         TEXT NOT NULL CHECK (length(id) BETWEEN 1 AND 64),
    name       TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    condition  TEXT NOT NULL CHECK (json_valid(condition) AND json_type(condition) = 'object'),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (app_id, id),
    CHECK (updated_at >= created_at)
) STRICT;

CREATE TABLE subscriber_attributes (
    app_id        TEXT NOT NULL REFERENCES apps (id),
    subscriber_id TEXT NOT NULL CHECK (length(subscriber_id) BETWEEN 1 AND 200),
    attributes    TEXT NOT NULL CHECK (json_valid(attributes) AND json_type(attributes) = 'object'),
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (app_id, subscriber_id)
) STRICT, WITHOUT ROWID;

-- At most cap_count presentations per subscriber in any cap_seconds: both or neither.
ALTER TABLE placement_rules ADD COLUMN cap_count INTEGER CHECK (cap_count IS NULL OR cap_count >= 1);
-- (Written so that it is never NULL: a NULL check passes in SQL, and "count without seconds" must not.)
ALTER TABLE placement_rules ADD COLUMN cap_seconds INTEGER
    CHECK ((cap_seconds IS NULL) = (cap_count IS NULL) AND (cap_seconds IS NULL OR cap_seconds >= 1));

CREATE INDEX events_by_subscriber ON events (app_id, subscriber_id, occurred_at) WHERE subscriber_id IS NOT NULL;
