-- 0010: webhook fairness and failing endpoints (docs/integrations.md), as SQLite's 0012.

ALTER TABLE webhook_endpoints ADD COLUMN failing_since BIGINT;
ALTER TABLE webhook_endpoints ADD COLUMN disabled_reason TEXT
    CHECK (disabled_reason IS NULL OR (disabled_reason = 'failing' AND NOT enabled AND failing_since IS NOT NULL));

CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (app_id, lease_until) WHERE lease_until IS NOT NULL;
