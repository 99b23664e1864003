-- 0001: the domain tables. Times are integer milliseconds since 1970 (UTC). Ids are opaque text
-- chosen by the service. Every table is STRICT so a wrong type is an error, not a silent coercion.

-- Apps: the tenant. Archived apps keep their rows; their keys stop working.
CREATE TABLE apps (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    created_at  INTEGER NOT NULL,
    archived_at INTEGER,
    CHECK (archived_at IS NULL OR archived_at >= created_at)
) STRICT;

-- API keys, stored only as SHA-256 hashes. `prefix` is the visible start of the key for listings.
-- Admin keys belong to no app; secret and public keys belong to exactly one.
CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    app_id     TEXT REFERENCES apps (id),
    kind       TEXT NOT NULL CHECK (kind IN ('secret', 'public', 'admin')),
    prefix     TEXT NOT NULL CHECK (length(prefix) BETWEEN 1 AND 32),
    hash       BLOB NOT NULL UNIQUE CHECK (length(hash) = 32),
    created_at INTEGER NOT NULL,
    revoked_at INTEGER,
    CHECK ((kind = 'admin') = (app_id IS NULL)),
    CHECK (revoked_at IS NULL OR revoked_at >= created_at)
) STRICT;
-- Listing an app's keys.
CREATE INDEX api_keys_by_app ON api_keys (app_id, created_at);

-- Server-wide settings (e.g. the generated admin token's hash).
CREATE TABLE settings (
    key        TEXT PRIMARY KEY,
    value      ANY NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;

-- Paywalls and their mutable draft. `draft_revision` grows by one on every save: it is the ETag
-- and the If-Match check (UPDATE ... WHERE id = ? AND draft_revision = ?).
CREATE TABLE paywalls (
    id             TEXT PRIMARY KEY,
    app_id         TEXT NOT NULL REFERENCES apps (id),
    name           TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    draft          TEXT NOT NULL CHECK (json_valid(draft) AND json_type(draft) = 'object'),
    draft_revision INTEGER NOT NULL DEFAULT 1 CHECK (draft_revision >= 1),
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    archived_at    INTEGER,
    CHECK (updated_at >= created_at),
    -- Target of the (app_id, paywall_id) foreign keys below: a row of one app can never point at
    -- another app's paywall.
    UNIQUE (app_id, id)
) STRICT;
-- Cursor pagination of an app's paywalls: WHERE app_id = ? AND (created_at, id) > (?, ?) ORDER BY created_at, id.
CREATE INDEX paywalls_page ON paywalls (app_id, created_at, id);

-- Published versions: n = 1, 2, ... per paywall, immutable once written.
CREATE TABLE paywall_versions (
    paywall_id       TEXT NOT NULL REFERENCES paywalls (id),
    version          INTEGER NOT NULL CHECK (version >= 1),
    document         TEXT NOT NULL CHECK (json_valid(document)),
    schema_version   INTEGER NOT NULL CHECK (schema_version >= 1),
    content_hash     TEXT NOT NULL CHECK (length(content_hash) >= 1),
    published_at     INTEGER NOT NULL,
    -- A retried publish with the same Idempotency-Key finds the first version instead of adding one.
    idempotency_key  TEXT CHECK (idempotency_key IS NULL OR length(idempotency_key) BETWEEN 1 AND 255),
    -- Set when this version republishes an older one (rollback).
    rolled_back_from INTEGER,
    PRIMARY KEY (paywall_id, version),
    UNIQUE (paywall_id, idempotency_key),
    FOREIGN KEY (paywall_id, rolled_back_from) REFERENCES paywall_versions (paywall_id, version),
    CHECK (rolled_back_from IS NULL OR rolled_back_from < version)
) STRICT;

-- Versions are numbered without gaps: the next one is always max + 1.
CREATE TRIGGER paywall_versions_sequential BEFORE INSERT ON paywall_versions
WHEN NEW.version <> coalesce((SELECT max(version) FROM paywall_versions WHERE paywall_id = NEW.paywall_id), 0) + 1
BEGIN
    SELECT RAISE(ABORT, 'paywall_versions: version must be the previous version + 1');
END;

-- Published versions are immutable: what an SDK once received can always be explained.
CREATE TRIGGER paywall_versions_no_update BEFORE UPDATE ON paywall_versions
BEGIN
    SELECT RAISE(ABORT, 'paywall_versions are immutable');
END;

CREATE TRIGGER paywall_versions_no_delete BEFORE DELETE ON paywall_versions
BEGIN
    SELECT RAISE(ABORT, 'paywall_versions are immutable');
END;

-- Placements: the key an SDK asks for, pointing at one paywall of the same app.
CREATE TABLE placements (
    app_id     TEXT NOT NULL REFERENCES apps (id),
    key        TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 100),
    paywall_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (app_id, key),
    FOREIGN KEY (app_id, paywall_id) REFERENCES paywalls (app_id, id),
    CHECK (updated_at >= created_at)
) STRICT;
-- "Which placements serve this paywall?" (archiving answers it), and the FK's child lookup.
CREATE INDEX placements_by_paywall ON placements (app_id, paywall_id);

-- Ordered targeting rules of a placement; replaced as a whole, removed with the placement.
CREATE TABLE placement_rules (
    app_id        TEXT NOT NULL,
    placement_key TEXT NOT NULL,
    position      INTEGER NOT NULL CHECK (position >= 0),
    condition     TEXT NOT NULL CHECK (json_valid(condition) AND json_type(condition) = 'object'),
    paywall_id    TEXT NOT NULL,
    active_from   INTEGER,
    active_until  INTEGER,
    PRIMARY KEY (app_id, placement_key, position),
    FOREIGN KEY (app_id, placement_key) REFERENCES placements (app_id, key) ON DELETE CASCADE,
    FOREIGN KEY (app_id, paywall_id) REFERENCES paywalls (app_id, id),
    CHECK (active_from IS NULL OR active_until IS NULL OR active_until > active_from)
) STRICT;
-- The FK's child lookup and "which rules route to this paywall?".
CREATE INDEX placement_rules_by_paywall ON placement_rules (app_id, paywall_id);

-- Funnel events from the SDK. The key (app_id, id) makes a retried batch idempotent:
-- INSERT ... ON CONFLICT DO NOTHING counts each event once.
CREATE TABLE events (
    app_id        TEXT NOT NULL REFERENCES apps (id),
    id            TEXT NOT NULL CHECK (length(id) BETWEEN 1 AND 200),
    name          TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    occurred_at   INTEGER NOT NULL,
    received_at   INTEGER NOT NULL,
    placement     TEXT,
    paywall_id    TEXT,
    version       INTEGER CHECK (version IS NULL OR version >= 1),
    subscriber_id TEXT,
    context       TEXT CHECK (context IS NULL OR (json_valid(context) AND json_type(context) = 'object')),
    properties    TEXT CHECK (properties IS NULL OR (json_valid(properties) AND json_type(properties) = 'object')),
    PRIMARY KEY (app_id, id),
    FOREIGN KEY (app_id, paywall_id) REFERENCES paywalls (app_id, id)
) STRICT;
-- The funnel per version: counts by name and distinct subscribers, answered from the index alone.
CREATE INDEX events_funnel ON events (app_id, paywall_id, version, name, subscriber_id);
-- Funnels restricted to a time window (from=/to=).
CREATE INDEX events_by_time ON events (app_id, paywall_id, occurred_at);

-- First start of a duration timer per (subscriber, paywall, node): INSERT ... ON CONFLICT DO
-- NOTHING, then read back, so the first write wins.
CREATE TABLE timer_starts (
    app_id        TEXT NOT NULL REFERENCES apps (id),
    subscriber_id TEXT NOT NULL CHECK (length(subscriber_id) BETWEEN 1 AND 200),
    paywall_id    TEXT NOT NULL,
    node_id       TEXT NOT NULL CHECK (length(node_id) BETWEEN 1 AND 200),
    started_at    INTEGER NOT NULL,
    PRIMARY KEY (app_id, subscriber_id, paywall_id, node_id),
    FOREIGN KEY (app_id, paywall_id) REFERENCES paywalls (app_id, id)
) STRICT, WITHOUT ROWID;
