import PaywallFormat

/// The audit log as the team reads it; entries are written by `StoreTransaction.record` inside each
/// write, never here.
public final class AuditService: Sendable {
    private let store: any DataStore
    private let clock: Clock
    /// How long entries are kept (`audit.retentionDays`).
    public let retentionMs: Int64

    public init(store: any DataStore, clock: Clock, retentionDays: Int = 365) {
        precondition(retentionDays >= 1, "the audit log keeps entries at least a day")
        self.store = store
        self.clock = clock
        retentionMs = Int64(retentionDays) * 86_400_000
    }

    /// The app's entries matching `filter` (nil: the instance's own — sign-ins, accounts — which
    /// belong to no app), newest first; `cursor` is the previous page's `nextCursor`.
    public func entries(appID: String?, filter: AuditFilter, cursor: String?, limit: Int) throws -> Page<AuditEntry> {
        let before = try SequenceCursor.parse(cursor)
        let rows = try store.read { tx in
            try tx.audit.entries(appID: appID, filter: filter, before: before, limit: limit + 1)
        }
        let items = Array(rows.prefix(limit))
        return Page(items: items, nextCursor: rows.count > limit ? items.last.map { String($0.seq) } : nil)
    }

    /// Deletes entries past retention; run by the maintenance loop.
    @discardableResult
    public func prune() throws -> Int {
        let cutoff = clock.now() - retentionMs
        return try store.write { tx in try tx.audit.prune(olderThan: cutoff) }
    }
}
