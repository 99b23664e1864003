-- 0009: integrations and teams (docs/integrations.md): scoped secret keys, sandbox public keys and
-- the environment of every event, the audit log, and webhooks (endpoints and their outbox).

-- A secret key's scopes, space-separated; NULL is every scope (every key made before scopes, and
-- every key made without asking for fewer). A public key's environment marks the events it sends.
ALTER TABLE api_keys ADD COLUMN scopes TEXT CHECK (scopes IS NULL OR (kind = 'secret' AND length(scopes) BETWEEN 1 AND 500));
ALTER TABLE api_keys ADD COLUMN environment TEXT NOT NULL DEFAULT 'production'
    CHECK (environment IN ('production', 'sandbox') AND (environment = 'production' OR kind = 'public'));

ALTER TABLE events ADD COLUMN environment TEXT NOT NULL DEFAULT 'production' CHECK (environment IN ('production', 'sandbox'));
-- The funnel reads one environment (production unless asked), still from the index alone.
DROP INDEX events_funnel;
CREATE INDEX events_funnel ON events (app_id, paywall_id, environment, version, name, subscriber_id);

-- Every write through REST, MCP or the CLI: who (key and kind, through what), what (action, target),
-- which request, and the content's SHA-256 before and after (hex; NULL where there is none).
CREATE TABLE audit_log (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id      TEXT,
    at          INTEGER NOT NULL,
    actor_kind  TEXT NOT NULL CHECK (actor_kind IN ('admin', 'secret', 'public', 'cli', 'system')),
    key_id      TEXT,
    via         TEXT NOT NULL CHECK (via IN ('rest', 'mcp', 'cli', 'system')),
    action      TEXT NOT NULL CHECK (length(action) BETWEEN 1 AND 64),
    target_kind TEXT NOT NULL CHECK (length(target_kind) BETWEEN 1 AND 32),
    target_id   TEXT,
    request_id  TEXT,
    before_hash TEXT CHECK (before_hash IS NULL OR length(before_hash) = 64),
    after_hash  TEXT CHECK (after_hash IS NULL OR length(after_hash) = 64)
) STRICT;
CREATE INDEX audit_log_by_app ON audit_log (app_id, seq);
CREATE INDEX audit_log_by_time ON audit_log (at);

-- An app's webhook endpoints. The secret signs every delivery (HMAC-SHA256), so it is stored as is.
CREATE TABLE webhook_endpoints (
    app_id      TEXT    NOT NULL REFERENCES apps (id),
    id          TEXT    NOT NULL,
    url         TEXT    NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
    description TEXT    CHECK (description IS NULL OR length(description) BETWEEN 1 AND 200),
    event_types TEXT    NOT NULL CHECK (json_valid(event_types) AND json_type(event_types) = 'array'),
    secret      TEXT    NOT NULL,
    enabled     INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (app_id, id),
    UNIQUE (id)
) STRICT;

-- The outbox: one row per (event, endpoint), written in the transaction of the change it
-- announces. `seq` orders an endpoint's deliveries; a pending row is retried until delivered or
-- given up ('failed'); `lease_until` keeps two processes from sending the same row at once.
CREATE TABLE webhook_deliveries (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT    NOT NULL UNIQUE,
    event_id        TEXT    NOT NULL,
    endpoint_id     TEXT    NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    app_id          TEXT    NOT NULL,
    event_type      TEXT    NOT NULL,
    payload         TEXT    NOT NULL,
    created_at      INTEGER NOT NULL,
    state           TEXT    NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at INTEGER NOT NULL,
    lease_until     INTEGER,
    last_attempt_at INTEGER,
    last_status     INTEGER,
    last_error      TEXT,
    finished_at     INTEGER,
    CHECK ((state = 'pending') = (finished_at IS NULL))
) STRICT;
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (endpoint_id, seq) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, seq);
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (finished_at) WHERE finished_at IS NOT NULL;
