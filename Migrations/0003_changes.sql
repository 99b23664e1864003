-- 0003: the change feed. Every committed write that changes what a server holds in memory (keys,
-- apps, published versions, placements and rules, experiments) appends one row here in the same
-- transaction, so every process on this database sees every write, in commit order, exactly once:
-- each tails the rows after the last sequence it applied (docs/scaling.md). AUTOINCREMENT: a
-- sequence is never reused, even after the oldest rows are pruned.
CREATE TABLE changes (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id    TEXT,
    kind      TEXT NOT NULL CHECK (kind IN ('app', 'key', 'paywall', 'placement', 'experiment')),
    entity_id TEXT,
    at        INTEGER NOT NULL
) STRICT;
