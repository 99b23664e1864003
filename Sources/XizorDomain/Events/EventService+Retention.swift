/// How long raw events are kept (`events.retentionDays`, per app `eventRetentionDays`) and how the
/// retention job deletes them: in chunks of `chunk` rows, each its own write transaction, so a
/// backlog of millions never holds the writer for longer than one chunk. The rollups stay: reports
/// of older ranges still answer, from their hour and day buckets (docs/analytics.md, "Retention").
public struct EventRetention: Sendable, Equatable {
    public var days: Int
    public var chunk: Int

    public init(days: Int = 400, chunk: Int = 1_000) {
        precondition(days >= 1 && chunk >= 1, "events are kept at least a day, deleted at least one at a time")
        self.days = days
        self.chunk = chunk
    }
}

/// What one retention pass deleted, and the most one of its transactions deleted.
public struct RetentionPass: Sendable, Equatable {
    public var deleted = 0
    public var transactions = 0
    public var largestChunk = 0
}

extension EventService {
    /// Deletes every app's events that occurred before its cutoff's hour (now − its retention,
    /// rounded down to the hour: an event is never deleted before it is due).
    public func pruneExpired() throws -> RetentionPass {
        let now = clock.now()
        let apps = try store.read { tx in try tx.apps.eventRetention() }
        var pass = RetentionPass()
        for app in apps {
            let days = Int64(app.days ?? retention.days)
            let cutoff = now - days * 86_400_000
            guard cutoff > 0 else { continue }
            let beforeHour = EventTimeIndex.firstBucket(from: cutoff)
            let paywalls = try store.read { tx in try tx.events.paywallsWithEvents(appID: app.appID) }
            for paywall in paywalls.map(Optional.some) + [nil] {
                while true {
                    let deleted = try store.write { tx in
                        try tx.events.deleteExpired(
                            appID: app.appID, paywallID: paywall, beforeHour: beforeHour, atMost: retention.chunk)
                    }
                    pass.deleted += deleted
                    pass.transactions += 1
                    pass.largestChunk = max(pass.largestChunk, deleted)
                    if deleted < retention.chunk { break }
                }
            }
        }
        return pass
    }
}
