-- 0014: a change kind for a subscriber's stored attributes. Every process keeps a bounded cache of
-- subscribers' attributes (docs/targeting.md, "Performance"); a write or delete of them appends a
-- `subscriber` change (entity: the subscriber id) so every process drops its cached copy. SQLite
-- cannot alter a CHECK constraint: the table is rebuilt with the same rows, and its AUTOINCREMENT
-- counter is carried over so a sequence is still never reused (even one whose row was pruned).
CREATE TABLE changes_new (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id    TEXT,
    kind      TEXT NOT NULL CHECK (kind IN ('app', 'key', 'paywall', 'placement', 'experiment', 'subscriber')),
    entity_id TEXT,
    at        INTEGER NOT NULL
) STRICT;
INSERT INTO changes_new (seq, app_id, kind, entity_id, at) SELECT seq, app_id, kind, entity_id, at FROM changes;
DELETE FROM sqlite_sequence WHERE name = 'changes_new';
INSERT INTO sqlite_sequence (name, seq) SELECT 'changes_new', seq FROM sqlite_sequence WHERE name = 'changes';
DROP TABLE changes;
ALTER TABLE changes_new RENAME TO changes;
