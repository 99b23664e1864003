-- 0012: webhook fairness and failing endpoints (docs/integrations.md, "Delivery", "Failing endpoints").

-- When the endpoint's current run of failed attempts began (NULL: its last attempt succeeded, or
-- none failed yet), and why the server disabled it ('failing': it failed for webhooks.disableAfterMs;
-- NULL: enabled, or disabled by a person). Only a disabled endpoint carries a reason.
ALTER TABLE webhook_endpoints ADD COLUMN failing_since INTEGER;
ALTER TABLE webhook_endpoints ADD COLUMN disabled_reason TEXT
    CHECK (disabled_reason IS NULL OR (disabled_reason = 'failing' AND enabled = 0 AND failing_since IS NOT NULL));

-- A claim counts each app's deliveries in flight (leased) to share senders out per app.
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (app_id, lease_until) WHERE lease_until IS NOT NULL;
