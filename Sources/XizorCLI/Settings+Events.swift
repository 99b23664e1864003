import Storage
import XizorLog

/// The settings of SDK events and the reports read from them (`events.*`, `analytics.*`).
struct EventSettings: Sendable {
    let maxAgeMs = Setting.int(
        "events.maxAgeMs", default: 2_592_000_000, 60_000...3_153_600_000_000,
        help:
            "SDK events with a timestamp older than this (ms before the server's clock) are rejected (timestamp_too_old); SDKs queue events offline, so allow for that"
    )
    let maxFutureMs = Setting.int(
        "events.maxFutureMs", default: 86_400_000, 0...31_536_000_000,
        help:
            "SDK events with a timestamp more than this many ms ahead of the server's clock are rejected (timestamp_in_future)"
    )
    let retentionDays = Setting.int(
        "events.retentionDays", default: 400, 1...36_500,
        help:
            "days raw events are kept (an app's own eventRetentionDays, PATCH /v1/apps/{id}, overrides it); older ones are deleted hourly, analytics keep their rollups"
    )
    let retentionChunk = Setting.int(
        "events.retentionChunk", default: 1_000, 10...100_000,
        help: "events the retention job deletes per write transaction (bounds how long it holds the writer)")
}

struct AnalyticsSettings: Sendable {
    let maxConcurrent = Setting.int(
        "analytics.maxConcurrent", default: 4, 1...256,
        help:
            "analytics requests (funnels, experiment results) run at once in this process, all apps together, and always at least one below the database's read connections so other reads find one free; 503 analytics_busy with Retry-After beyond"
    )
    let maxConcurrentPerApp = Setting.int(
        "analytics.maxConcurrentPerApp", default: 2, 1...256,
        help: "analytics requests one app may run at once; 429 analytics_busy with Retry-After beyond")
    let queryTimeLimitMs = Setting.int(
        "analytics.queryTimeLimitMs", default: 10_000, 100...600_000,
        help: "each statement of an analytics request stops after this long (503 query_time_limit with Retry-After)")
    let rollupIntervalMs = Setting.int(
        "analytics.rollupIntervalMs", default: 1_000, 50...60_000,
        help:
            "how often the rollup job folds new events into the hourly and daily rollups analytics read (events not folded yet are counted from the queue)"
    )
    let rollupBatch = Setting.int(
        "analytics.rollupBatch", default: 5_000, 100...100_000,
        help: "events folded per write transaction of the rollup job (bounds how long it holds the writer)")
}
