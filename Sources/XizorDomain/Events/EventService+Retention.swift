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

/// What one retention pass deleted, and the most one of its transactions deleted; on PostgreSQL,
/// the monthly partitions it created ahead and the ones it dropped whole.
public struct RetentionPass: Sendable, Equatable {
    public var deleted = 0
    public var transactions = 0
    public var largestChunk = 0
    public var partitionsCreated = 0
    public var partitionsDropped: [String] = []
}

extension EventService {
    /// Deletes every app's events that occurred before its cutoff's hour (now − its retention,
    /// rounded down to the hour: an event is never deleted before it is due).
    ///
    /// On PostgreSQL, whose events are partitioned by UTC month (postgres/0018), the months an event
    /// may still arrive in get their partitions first: the ingest window's, and the month after this
    /// one. At most two months back: an `events.maxAgeMs` of years must not mean a partition per month
    /// of them, and older late events wait in the default partition. Then every month that ended
    /// before every app's cutoff is dropped whole, and the chunked deletes are left with what apps
    /// keeping events for less time than others are due (and the default partition's).
    public func pruneExpired() throws -> RetentionPass {
        let now = clock.now()
        let apps = try store.read { tx in try tx.apps.eventRetention() }
        var pass = RetentionPass()
        pass.partitionsCreated = try store.write { tx in
            try tx.events.preparePartitions(
                from: now - min(window.maxAgeMs, 62 * 86_400_000), to: now + window.maxFutureMs + 31 * 86_400_000)
        }
        let cutoffs = apps.map { app in
            let cutoff = now - Int64(app.days ?? retention.days) * 86_400_000
            return (app, EventTimeIndex.firstBucket(from: cutoff))
        }
        if let earliest = cutoffs.map(\.1).min(), earliest > 0 {
            pass.partitionsDropped = try store.write { tx in
                try tx.events.dropPartitions(endingBy: earliest * EventTimeIndex.bucketMs)
            }
        }
        for (app, beforeHour) in cutoffs {
            guard beforeHour > 0 else { continue }
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
