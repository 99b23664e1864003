-- 0013: a publish's Idempotency-Key remembers the request it was sent with.
--
-- A key reused with a different request (another note, force, another paywall's path) must not
-- replay the first answer as if it were this one's: the hash of method, path and body is stored with
-- the version, and a mismatch answers 422 idempotency_key_mismatch (as Stripe does). Rows stored
-- before this column existed have no hash and keep replaying as they did.
ALTER TABLE paywall_versions ADD COLUMN request_hash TEXT CHECK (request_hash IS NULL OR length(request_hash) = 64);
