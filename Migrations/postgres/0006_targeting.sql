-- 0006: targeting (docs/targeting.md), as SQLite's 0008: named audiences, attributes stored per
-- subscriber, frequency caps on rules, and an index to count a subscriber's presentations (and
-- delete a subscriber's events in one call). An audience change is a 'placement' change in the feed.
CREATE TABLE audiences (
    app_id     TEXT   NOT NULL REFERENCES apps (id),
    id         TEXT   NOT NULL CHECK (char_length(id) BETWEEN 1 AND 64),
    name       TEXT   NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    condition  TEXT   NOT NULL CHECK (xizor_is_json_object(condition)),
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (app_id, id),
    CHECK (updated_at >= created_at)
);

CREATE TABLE subscriber_attributes (
    app_id        TEXT   NOT NULL REFERENCES apps (id),
    subscriber_id TEXT   NOT NULL CHECK (char_length(subscriber_id) BETWEEN 1 AND 200),
    attributes    TEXT   NOT NULL CHECK (xizor_is_json_object(attributes)),
    updated_at    BIGINT NOT NULL,
    PRIMARY KEY (app_id, subscriber_id)
);

ALTER TABLE placement_rules ADD COLUMN cap_count BIGINT CHECK (cap_count IS NULL OR cap_count >= 1);
ALTER TABLE placement_rules ADD COLUMN cap_seconds BIGINT CHECK (cap_seconds IS NULL OR cap_seconds >= 1);
ALTER TABLE placement_rules ADD CONSTRAINT placement_rules_cap_pair CHECK ((cap_count IS NULL) = (cap_seconds IS NULL));

CREATE INDEX events_by_subscriber ON events (app_id, subscriber_id, occurred_at) WHERE subscriber_id IS NOT NULL;
