-- 0007: integrations and teams (docs/integrations.md), as SQLite's 0009: scoped secret keys,
-- sandbox public keys and the environment of every event, the audit log, and webhooks.

ALTER TABLE api_keys ADD COLUMN scopes TEXT CHECK (scopes IS NULL OR (kind = 'secret' AND char_length(scopes) BETWEEN 1 AND 500));
ALTER TABLE api_keys ADD COLUMN environment TEXT NOT NULL DEFAULT 'production'
    CHECK (environment IN ('production', 'sandbox') AND (environment = 'production' OR kind = 'public'));

ALTER TABLE events ADD COLUMN environment TEXT NOT NULL DEFAULT 'production' CHECK (environment IN ('production', 'sandbox'));
DROP INDEX events_funnel;
CREATE INDEX events_funnel ON events (app_id, paywall_id, environment, version, name, subscriber_id);

CREATE TABLE audit_log (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id      TEXT,
    at          BIGINT NOT NULL,
    actor_kind  TEXT NOT NULL CHECK (actor_kind IN ('admin', 'secret', 'public', 'cli', 'system')),
    key_id      TEXT,
    via         TEXT NOT NULL CHECK (via IN ('rest', 'mcp', 'cli', 'system')),
    action      TEXT NOT NULL CHECK (char_length(action) BETWEEN 1 AND 64),
    target_kind TEXT NOT NULL CHECK (char_length(target_kind) BETWEEN 1 AND 32),
    target_id   TEXT,
    request_id  TEXT,
    before_hash TEXT CHECK (before_hash IS NULL OR char_length(before_hash) = 64),
    after_hash  TEXT CHECK (after_hash IS NULL OR char_length(after_hash) = 64)
);
CREATE INDEX audit_log_by_app ON audit_log (app_id, seq);
CREATE INDEX audit_log_by_time ON audit_log (at);

CREATE TABLE webhook_endpoints (
    app_id      TEXT    NOT NULL REFERENCES apps (id),
    id          TEXT    NOT NULL UNIQUE,
    url         TEXT    NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2048),
    description TEXT    CHECK (description IS NULL OR char_length(description) BETWEEN 1 AND 200),
    event_types TEXT    NOT NULL CHECK (xizor_is_json(event_types)),
    secret      TEXT    NOT NULL,
    enabled     BOOLEAN NOT NULL,
    created_at  BIGINT  NOT NULL,
    updated_at  BIGINT  NOT NULL,
    PRIMARY KEY (app_id, id)
);

-- Inserts take the change feed's advisory lock (PostgresWebhookStore), so rows commit in `seq` order.
CREATE TABLE webhook_deliveries (
    seq             BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id              TEXT    NOT NULL UNIQUE,
    event_id        TEXT    NOT NULL,
    endpoint_id     TEXT    NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    app_id          TEXT    NOT NULL,
    event_type      TEXT    NOT NULL,
    payload         TEXT    NOT NULL,
    created_at      BIGINT  NOT NULL,
    state           TEXT    NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at BIGINT  NOT NULL,
    lease_until     BIGINT,
    last_attempt_at BIGINT,
    last_status     INTEGER,
    last_error      TEXT,
    finished_at     BIGINT,
    CHECK ((state = 'pending') = (finished_at IS NULL))
);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (endpoint_id, seq) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, seq);
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (finished_at) WHERE finished_at IS NOT NULL;
