-- 0019 (as SQLite's): verified revenue (issue 38, docs/revenue.md): the stores' own word on purchases, renewals and
-- refunds — App Store Server Notifications V2 and RevenueCat webhooks — attributed to the paywall
-- presentation that led to them. Amounts are integer milliunits of their currency (Apple's own unit:
-- 9.99 EUR is 9990), so sums are exact.

-- An app's store settings. The RevenueCat authorization value is write-only: kept as its SHA-256.
CREATE TABLE revenue_settings (
    app_id                   TEXT PRIMARY KEY REFERENCES apps (id),
    apple_bundle_id          TEXT CHECK (apple_bundle_id IS NULL OR length(apple_bundle_id) BETWEEN 1 AND 255),
    apple_app_id             BIGINT CHECK (apple_app_id IS NULL OR apple_app_id > 0),
    revenuecat_authorization TEXT CHECK (revenuecat_authorization IS NULL OR length(revenuecat_authorization) = 64),
    attribution_window_hours BIGINT NOT NULL CHECK (attribution_window_hours BETWEEN 1 AND 720),
    updated_at               BIGINT NOT NULL
);

-- Every verified notification, once by the store's own id (Apple's notificationUUID, RevenueCat's
-- event id): a store's retry finds its row and counts nothing again.
CREATE TABLE store_notifications (
    app_id      TEXT    NOT NULL REFERENCES apps (id),
    source      TEXT    NOT NULL CHECK (source IN ('apple', 'revenuecat')),
    id          TEXT    NOT NULL CHECK (length(id) BETWEEN 1 AND 200),
    environment TEXT    NOT NULL CHECK (environment IN ('production', 'sandbox')),
    type        TEXT    NOT NULL CHECK (length(type) BETWEEN 1 AND 100),
    received_at BIGINT NOT NULL,
    body        TEXT    NOT NULL,
    PRIMARY KEY (app_id, source, id)
);

-- A subscription (or a one-time purchase) by its original transaction: whose it is, where its first
-- transaction was credited ('' and 0 when to no presentation) and its phase, so a renewal knows
-- whether it converts a trial and every later transaction inherits the credit.
CREATE TABLE store_subscriptions (
    app_id        TEXT    NOT NULL REFERENCES apps (id),
    source        TEXT    NOT NULL CHECK (source IN ('apple', 'revenuecat')),
    original_id   TEXT    NOT NULL CHECK (length(original_id) BETWEEN 1 AND 200),
    environment   TEXT    NOT NULL CHECK (environment IN ('production', 'sandbox')),
    subscriber_id TEXT,
    product_id    TEXT    NOT NULL,
    phase         TEXT    NOT NULL CHECK (phase IN ('trial', 'paid')),
    credited_at   BIGINT NOT NULL,
    placement     TEXT    NOT NULL,
    paywall_id    TEXT    NOT NULL,
    version       BIGINT NOT NULL CHECK (version >= 0),
    experiment_id TEXT    NOT NULL,
    variant       TEXT    NOT NULL,
    PRIMARY KEY (app_id, source, original_id)
);
CREATE INDEX store_subscriptions_by_subscriber ON store_subscriptions (app_id, subscriber_id);

-- What moved money (or started a trial), once per transaction and kind: a purchase and its later
-- refund are two rows; the same transaction announced twice is one.
CREATE TABLE store_transactions (
    app_id          TEXT    NOT NULL REFERENCES apps (id),
    source          TEXT    NOT NULL CHECK (source IN ('apple', 'revenuecat')),
    transaction_id  TEXT    NOT NULL CHECK (length(transaction_id) BETWEEN 1 AND 200),
    kind            TEXT    NOT NULL CHECK (kind IN ('trial_start', 'purchase', 'conversion', 'renewal', 'refund')),
    original_id     TEXT    NOT NULL,
    occurred_at     BIGINT NOT NULL,
    currency        TEXT    NOT NULL CHECK (length(currency) BETWEEN 1 AND 8),
    amount          BIGINT NOT NULL CHECK (amount >= 0),
    notification_id TEXT    NOT NULL,
    PRIMARY KEY (app_id, source, transaction_id, kind)
);

-- appAccountToken → subscriber: the name-based UUID XizorKit derives from a subscriber id, recorded
-- by the rollup job for every subscriber who opened a paywall (only they can be credited).
CREATE TABLE subscriber_tokens (
    app_id        TEXT NOT NULL,
    token         TEXT NOT NULL CHECK (length(token) = 36),
    subscriber_id TEXT NOT NULL,
    PRIMARY KEY (app_id, token)
);
CREATE INDEX subscriber_tokens_by_subscriber ON subscriber_tokens (app_id, subscriber_id);

-- Verified figures per credit (paywall, version, placement, experiment, variant; '' and 0 for
-- unattributed), environment, cohort day (the UTC day the subscription was credited) and currency.
-- net_7d/30d/90d: payments less refunds within that many days of the credit.
CREATE TABLE verified_rollups (
    app_id            TEXT    NOT NULL,
    paywall_id        TEXT    NOT NULL,
    version           BIGINT NOT NULL,
    placement         TEXT    NOT NULL,
    experiment_id     TEXT    NOT NULL,
    variant           TEXT    NOT NULL,
    environment       TEXT    NOT NULL CHECK (environment IN ('production', 'sandbox')),
    day               BIGINT NOT NULL,
    currency          TEXT    NOT NULL,
    trial_starts      BIGINT NOT NULL,
    trial_conversions BIGINT NOT NULL,
    paid_conversions  BIGINT NOT NULL,
    renewals          BIGINT NOT NULL,
    refunds           BIGINT NOT NULL,
    gross             BIGINT NOT NULL,
    refunded          BIGINT NOT NULL,
    net_7d            BIGINT NOT NULL,
    net_30d           BIGINT NOT NULL,
    net_90d           BIGINT NOT NULL,
    PRIMARY KEY (app_id, paywall_id, version, placement, experiment_id, variant, environment, day, currency)
);
CREATE INDEX verified_rollups_by_experiment ON verified_rollups (app_id, experiment_id, environment);

-- Each experiment arm's distinct verified subscribers: their progress (bits: 1 started a trial, 2
-- paid, 4 converted a trial, 8 had a refund), and per arm the counts, which move only when a
-- subscriber's progress does — exact, as experiment_rollups are.
CREATE TABLE verified_subscribers (
    app_id        TEXT    NOT NULL,
    experiment_id TEXT    NOT NULL,
    variant       TEXT    NOT NULL,
    environment   TEXT    NOT NULL CHECK (environment IN ('production', 'sandbox')),
    subscriber_id TEXT    NOT NULL,
    progress      BIGINT NOT NULL CHECK (progress BETWEEN 0 AND 15),
    PRIMARY KEY (app_id, experiment_id, variant, environment, subscriber_id)
);
CREATE INDEX verified_subscribers_by_subscriber ON verified_subscribers (app_id, subscriber_id);

CREATE TABLE verified_experiment_rollups (
    app_id          TEXT    NOT NULL,
    experiment_id   TEXT    NOT NULL,
    variant         TEXT    NOT NULL,
    environment     TEXT    NOT NULL CHECK (environment IN ('production', 'sandbox')),
    trial_started   BIGINT NOT NULL,
    paid            BIGINT NOT NULL,
    trial_converted BIGINT NOT NULL,
    refunded        BIGINT NOT NULL,
    PRIMARY KEY (app_id, experiment_id, variant, environment)
);
