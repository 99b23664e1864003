-- A change kind for a subscriber's stored attributes: a write or delete of them appends a
-- `subscriber` change (entity: the subscriber id) so every process drops its cached copy
-- (docs/targeting.md, "Performance").
ALTER TABLE changes DROP CONSTRAINT changes_kind_check;
ALTER TABLE changes ADD CONSTRAINT changes_kind_check
    CHECK (kind IN ('app', 'key', 'paywall', 'placement', 'experiment', 'subscriber'));
