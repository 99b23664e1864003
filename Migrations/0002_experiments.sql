-- 0002: experiments (A/B tests on placements). A placement's default or a rule may name a running
-- experiment; its paywall_id stays the answer whenever the experiment is not running.

CREATE TABLE experiments (
    id             TEXT PRIMARY KEY,
    app_id         TEXT NOT NULL REFERENCES apps (id),
    name           TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    status         TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'running', 'stopped')),
    holdout_weight INTEGER NOT NULL DEFAULT 0 CHECK (holdout_weight >= 0),
    -- Which variant each of the 10,000 assignment buckets goes to (one byte per bucket; 255 =
    -- holdout). Recomputed on a weight change so that as few buckets as possible move.
    allocation     BLOB NOT NULL CHECK (length(allocation) = 10000),
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    started_at     INTEGER,
    stopped_at     INTEGER,
    winner         INTEGER,
    UNIQUE (app_id, id)
) STRICT;
CREATE INDEX experiments_by_app ON experiments (app_id, created_at, id);

-- Variants in order; position 0 is the control.
CREATE TABLE experiment_variants (
    experiment_id TEXT NOT NULL REFERENCES experiments (id),
    position      INTEGER NOT NULL CHECK (position BETWEEN 0 AND 4),
    app_id        TEXT NOT NULL,
    name          TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
    paywall_id    TEXT NOT NULL,
    weight        INTEGER NOT NULL CHECK (weight >= 0),
    PRIMARY KEY (experiment_id, position),
    UNIQUE (experiment_id, name),
    FOREIGN KEY (app_id, paywall_id) REFERENCES paywalls (app_id, id)
) STRICT, WITHOUT ROWID;

ALTER TABLE placements ADD COLUMN experiment_id TEXT REFERENCES experiments (id);
ALTER TABLE placement_rules ADD COLUMN experiment_id TEXT REFERENCES experiments (id);
CREATE INDEX placements_by_experiment ON placements (experiment_id) WHERE experiment_id IS NOT NULL;
CREATE INDEX placement_rules_by_experiment ON placement_rules (experiment_id) WHERE experiment_id IS NOT NULL;

-- Events carry the experiment and variant they were shown under.
ALTER TABLE events ADD COLUMN experiment_id TEXT;
ALTER TABLE events ADD COLUMN variant TEXT;
CREATE INDEX events_by_experiment ON events (app_id, experiment_id, variant, name, subscriber_id) WHERE experiment_id IS NOT NULL;
