-- 0001 (PostgreSQL): the schema SQLite reaches with Migrations/0001–0003, in one file; from here on
-- both folders grow side by side. Every integer is BIGINT, as SQLite's are 64-bit: a number the API
-- accepts (a version, a weight) is then never out of range here, only absent. Times are BIGINT
-- milliseconds since 1970 (UTC). Documents, drafts
-- and rule conditions stay TEXT: their canonical bytes are what is hashed and served, and jsonb would
-- reorder them. Event context and properties are jsonb: only ever filtered, never served.

-- A text that parses as a JSON object (PostgreSQL 15 has no pg_input_is_valid).
CREATE FUNCTION xizor_is_json_object(t TEXT) RETURNS BOOLEAN LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN jsonb_typeof(t::jsonb) = 'object';
EXCEPTION WHEN others THEN
    RETURN false;
END $$;

CREATE FUNCTION xizor_is_json(t TEXT) RETURNS BOOLEAN LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    PERFORM t::jsonb;
    RETURN true;
EXCEPTION WHEN others THEN
    RETURN false;
END $$;

CREATE TABLE apps (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    created_at  BIGINT NOT NULL,
    archived_at BIGINT,
    CHECK (archived_at IS NULL OR archived_at >= created_at)
);

CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    app_id     TEXT REFERENCES apps (id),
    kind       TEXT NOT NULL CHECK (kind IN ('secret', 'public', 'admin')),
    prefix     TEXT NOT NULL CHECK (char_length(prefix) BETWEEN 1 AND 32),
    hash       BYTEA NOT NULL UNIQUE CHECK (octet_length(hash) = 32),
    created_at BIGINT NOT NULL,
    revoked_at BIGINT,
    CHECK ((kind = 'admin') = (app_id IS NULL)),
    CHECK (revoked_at IS NULL OR revoked_at >= created_at)
);
CREATE INDEX api_keys_by_app ON api_keys (app_id, created_at);

CREATE TABLE settings (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE paywalls (
    id             TEXT PRIMARY KEY,
    app_id         TEXT NOT NULL REFERENCES apps (id),
    name           TEXT NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    draft          TEXT NOT NULL CHECK (xizor_is_json_object(draft)),
    draft_revision BIGINT NOT NULL DEFAULT 1 CHECK (draft_revision >= 1),
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL,
    archived_at    BIGINT,
    CHECK (updated_at >= created_at),
    UNIQUE (app_id, id)
);
CREATE INDEX paywalls_page ON paywalls (app_id, created_at, id);

CREATE TABLE paywall_versions (
    paywall_id       TEXT NOT NULL REFERENCES paywalls (id),
    version          BIGINT NOT NULL CHECK (version >= 1),
    document         TEXT NOT NULL CHECK (xizor_is_json(document)),
    schema_version   BIGINT NOT NULL CHECK (schema_version >= 1),
    content_hash     TEXT NOT NULL CHECK (char_length(content_hash) >= 1),
    published_at     BIGINT NOT NULL,
    idempotency_key  TEXT CHECK (idempotency_key IS NULL OR char_length(idempotency_key) BETWEEN 1 AND 255),
    rolled_back_from BIGINT,
    PRIMARY KEY (paywall_id, version),
    UNIQUE (paywall_id, idempotency_key),
    FOREIGN KEY (paywall_id, rolled_back_from) REFERENCES paywall_versions (paywall_id, version),
    CHECK (rolled_back_from IS NULL OR rolled_back_from < version)
);

-- Versions are numbered without gaps, and immutable once written.
CREATE FUNCTION paywall_versions_sequential() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.version <> coalesce((SELECT max(version) FROM paywall_versions WHERE paywall_id = NEW.paywall_id), 0) + 1 THEN
        RAISE EXCEPTION 'paywall_versions: version must be the previous version + 1';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER paywall_versions_sequential BEFORE INSERT ON paywall_versions
    FOR EACH ROW EXECUTE FUNCTION paywall_versions_sequential();

CREATE FUNCTION paywall_versions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'paywall_versions are immutable';
END $$;
CREATE TRIGGER paywall_versions_no_update BEFORE UPDATE ON paywall_versions
    FOR EACH ROW EXECUTE FUNCTION paywall_versions_immutable();
CREATE TRIGGER paywall_versions_no_delete BEFORE DELETE ON paywall_versions
    FOR EACH ROW EXECUTE FUNCTION paywall_versions_immutable();

CREATE TABLE experiments (
    id             TEXT PRIMARY KEY,
    app_id         TEXT NOT NULL REFERENCES apps (id),
    name           TEXT NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    status         TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'running', 'stopped')),
    holdout_weight BIGINT NOT NULL DEFAULT 0 CHECK (holdout_weight >= 0),
    allocation     BYTEA NOT NULL CHECK (octet_length(allocation) = 10000),
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL,
    started_at     BIGINT,
    stopped_at     BIGINT,
    winner         BIGINT,
    UNIQUE (app_id, id)
);
CREATE INDEX experiments_by_app ON experiments (app_id, created_at, id);

CREATE TABLE experiment_variants (
    experiment_id TEXT NOT NULL REFERENCES experiments (id),
    position      BIGINT NOT NULL CHECK (position BETWEEN 0 AND 4),
    app_id        TEXT NOT NULL,
    name          TEXT NOT NULL CHECK (char_length(name) BETWEEN 1 AND 64),
    paywall_id    TEXT NOT NULL,
    weight        BIGINT NOT NULL CHECK (weight >= 0),
    PRIMARY KEY (experiment_id, position),
    UNIQUE (experiment_id, name),
    FOREIGN KEY (app_id, paywall_id) REFERENCES paywalls (app_id, id)
);

CREATE TABLE placements (
    app_id        TEXT NOT NULL REFERENCES apps (id),
    key           TEXT NOT NULL CHECK (char_length(key) BETWEEN 1 AND 100),
    paywall_id    TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL,
    experiment_id TEXT REFERENCES experiments (id),
    PRIMARY KEY (app_id, key),
    FOREIGN KEY (app_id, paywall_id) REFERENCES paywalls (app_id, id),
    CHECK (updated_at >= created_at)
);
CREATE INDEX placements_by_paywall ON placements (app_id, paywall_id);
CREATE INDEX placements_by_experiment ON placements (experiment_id) WHERE experiment_id IS NOT NULL;

CREATE TABLE placement_rules (
    app_id        TEXT NOT NULL,
    placement_key TEXT NOT NULL,
    position      BIGINT NOT NULL CHECK (position >= 0),
    condition     TEXT NOT NULL CHECK (xizor_is_json_object(condition)),
    paywall_id    TEXT NOT NULL,
    active_from   BIGINT,
    active_until  BIGINT,
    experiment_id TEXT REFERENCES experiments (id),
    PRIMARY KEY (app_id, placement_key, position),
    FOREIGN KEY (app_id, placement_key) REFERENCES placements (app_id, key) ON DELETE CASCADE,
    FOREIGN KEY (app_id, paywall_id) REFERENCES paywalls (app_id, id),
    CHECK (active_from IS NULL OR active_until IS NULL OR active_until > active_from)
);
CREATE INDEX placement_rules_by_paywall ON placement_rules (app_id, paywall_id);
CREATE INDEX placement_rules_by_experiment ON placement_rules (experiment_id) WHERE experiment_id IS NOT NULL;

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
    PRIMARY KEY (app_id, id),
    FOREIGN KEY (app_id, paywall_id) REFERENCES paywalls (app_id, id)
);
CREATE INDEX events_funnel ON events (app_id, paywall_id, version, name, subscriber_id);
CREATE INDEX events_by_time ON events (app_id, paywall_id, occurred_at);
CREATE INDEX events_by_experiment ON events (app_id, experiment_id, variant, name, subscriber_id) WHERE experiment_id IS NOT NULL;

CREATE TABLE timer_starts (
    app_id        TEXT NOT NULL REFERENCES apps (id),
    subscriber_id TEXT NOT NULL CHECK (char_length(subscriber_id) BETWEEN 1 AND 200),
    paywall_id    TEXT NOT NULL,
    node_id       TEXT NOT NULL CHECK (char_length(node_id) BETWEEN 1 AND 200),
    started_at    BIGINT NOT NULL,
    PRIMARY KEY (app_id, subscriber_id, paywall_id, node_id),
    FOREIGN KEY (app_id, paywall_id) REFERENCES paywalls (app_id, id)
);

-- The change feed (docs/scaling.md). A sequence is never reused. Writers append under a
-- transaction-scoped advisory lock held to commit, so sequences commit in order: a replica that has
-- read up to N never later finds a smaller sequence committed behind it.
CREATE TABLE changes (
    seq       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id    TEXT,
    kind      TEXT NOT NULL CHECK (kind IN ('app', 'key', 'paywall', 'placement', 'experiment')),
    entity_id TEXT,
    at        BIGINT NOT NULL
);
CREATE INDEX changes_by_time ON changes (at);
