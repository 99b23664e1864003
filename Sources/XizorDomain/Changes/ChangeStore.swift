/// One committed change as the feed reads it.
public struct Change: Sendable, Equatable {
    /// What changed; the kind decides which in-memory state a process re-reads.
    public enum Kind: String, Sendable, CaseIterable {
        /// An app was created or archived (its keys live or die with it).
        case app
        /// A key (an app's, or an admin token) was created or revoked.
        case key
        /// A version was published or rolled back, or a paywall archived.
        case paywall
        /// The app's routing changed: a placement, its rules, or an audience (entity: nil) — all
        /// re-read together, so a new kind (and a rebuilt `changes` table) was not needed.
        case placement
        /// An experiment started, stopped, was re-weighted or promoted.
        case experiment
        /// A subscriber's stored attributes were written or deleted (entity: the subscriber id):
        /// every process drops its cached copy (SubscriberAttributeCache).
        case subscriber
    }

    public let sequence: Int64
    /// Nil for changes that belong to no app (admin tokens).
    public let appID: String?
    public let kind: Kind
    public let entityID: String?

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        sequence: Int64,
        appID: String?,
        kind: Kind,
        entityID: String?
    ) {
        self.sequence = sequence
        self.appID = appID
        self.kind = kind
        self.entityID = entityID
    }
}

/// All SQL of the `changes` table.
public protocol ChangeStore {
    /// Appends a change inside the caller's write transaction: it commits or rolls back with the
    /// write it describes. Returns its sequence.
    @discardableResult
    func append(appID: String?, kind: Change.Kind, entityID: String?, now: Int64) throws -> Int64
    /// Up to `limit` changes after `sequence`, oldest first.
    func after(sequence: Int64, limit: Int) throws -> [Change]
    /// The newest sequence ever written (0 when none), even once its row is pruned.
    func latestSequence() throws -> Int64
    /// The oldest sequence still stored, or nil when the table is empty.
    func oldestSequence() throws -> Int64?
    func count() throws -> Int
    /// Deletes changes older than `before` (ms) and, beyond those, all but the newest `keep`.
    /// Returns how many were deleted.
    @discardableResult
    func prune(olderThan before: Int64, keepingAtMost keep: Int) throws -> Int
}
