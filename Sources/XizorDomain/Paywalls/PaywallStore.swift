/// A paywall's row with the number of its newest version.
public struct StoredPaywall: Sendable {
    public let id: String
    public let name: String
    public let createdAt: Int64
    public let updatedAt: Int64
    public let archivedAt: Int64?
    public let draftRevision: Int64
    public let latestVersion: Int?
    /// Whether the draft differs from the latest version (nil before the first publish).
    public let draftChanged: Bool?

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        id: String,
        name: String,
        createdAt: Int64,
        updatedAt: Int64,
        archivedAt: Int64?,
        draftRevision: Int64,
        latestVersion: Int?,
        draftChanged: Bool?
    ) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.archivedAt = archivedAt
        self.draftRevision = draftRevision
        self.latestVersion = latestVersion
        self.draftChanged = draftChanged
    }
}

/// A published version as stored: the canonical document text and what was derived from it.
public struct StoredVersion: Sendable {
    public let paywallID: String
    public let version: Int
    public let document: String
    public let schemaVersion: Int
    public let contentHash: String
    public let publishedAt: Int64
    public let rolledBackFrom: Int?
    /// Why it was published, as the publisher wrote it (1 to 500 characters).
    public let note: String?
    /// The id of the key that published it (nil for the CLI and for versions older than notes).
    public let publishedBy: String?

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        paywallID: String,
        version: Int,
        document: String,
        schemaVersion: Int,
        contentHash: String,
        publishedAt: Int64,
        rolledBackFrom: Int?,
        note: String?,
        publishedBy: String?
    ) {
        self.paywallID = paywallID
        self.version = version
        self.document = document
        self.schemaVersion = schemaVersion
        self.contentHash = contentHash
        self.publishedAt = publishedAt
        self.rolledBackFrom = rolledBackFrom
        self.note = note
        self.publishedBy = publishedBy
    }
}

/// A draft as stored.
public struct StoredDraft: Sendable {
    public let document: String
    public let revision: Int64
    /// The translation memory's JSON (nil before the first save that records one).
    public let translationSources: String?

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        document: String,
        revision: Int64,
        translationSources: String?
    ) {
        self.document = document
        self.revision = revision
        self.translationSources = translationSources
    }
}

/// Whether a paywall takes new versions and targets.
public enum PaywallLifecycle: Sendable, Equatable {
    case live
    case archived
}

/// All SQL of paywalls, their drafts and their versions.
public protocol PaywallStore {
    func insert(id: String, appID: String, name: String, draft: String, translationSources: String, now: Int64) throws
    func paywall(appID: String, id: String) throws -> StoredPaywall?
    /// Nil when the app has no such paywall.
    func lifecycle(appID: String, id: String) throws -> PaywallLifecycle?
    /// Live paywalls (or, with `archived`, the archived ones), after `cursor` in creation order.
    func page(appID: String, after cursor: PageCursor, limit: Int, archived: Bool) throws -> [StoredPaywall]
    /// Marks a live paywall archived; false when the app has no such live paywall.
    func archive(appID: String, id: String, now: Int64) throws -> Bool
    /// Makes an archived paywall live again; false when the app has no such archived paywall.
    func unarchive(appID: String, id: String, now: Int64) throws -> Bool

    func draft(appID: String, id: String) throws -> StoredDraft?
    /// Replaces the draft when it is still at `expectedRevision`; false when it is not (or missing).
    /// Saves the draft at `expectedRevision`; a `name` renames the paywall in the same statement
    /// (the summary's name follows the draft document's).
    func saveDraft(
        appID: String, id: String, document: String, name: String?, translationSources: String,
        expectedRevision: Int64, now: Int64
    ) throws -> Bool

    /// The version a publish with this idempotency key created, if any, with its request's hash.
    func version(appID: String, paywallID: String, idempotencyKey: String) throws -> IdempotentPublish?
    func latestVersionNumber(paywallID: String) throws -> Int?
    func hasVersion(appID: String, paywallID: String, version: Int) throws -> Bool
    /// Holds off other transactions publishing this paywall until this one ends, so two writers
    /// (replicas on one PostgreSQL) never number a version alike.
    func lockForPublish(paywallID: String) throws
    /// Stores a version (with the idempotency key and request hash of the publish that made it) and
    /// bumps the paywall's `updatedAt`.
    func insertVersion(_ version: StoredVersion, idempotencyKey: String?, requestHash: String?) throws
    /// Every version, newest first.
    func versions(paywallID: String) throws -> [StoredVersion]
    /// A version of one of the app's paywalls.
    func version(appID: String, paywallID: String, version: Int) throws -> StoredVersion?
    /// A version by its key alone (the serving state, which already knows the app).
    func version(paywallID: String, version: Int) throws -> StoredVersion?
    /// The newest version number of each of the app's paywalls that has one.
    func latestVersionNumbers(appID: String) throws -> [String: Int]
    func archivedPaywallIDs(appID: String) throws -> [String]
}

/// The version a keyed publish created and the hash of its request (nil: stored before hashes were).
public struct IdempotentPublish: Sendable, Equatable {
    public let version: Int
    public let requestHash: String?

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        version: Int,
        requestHash: String?
    ) {
        self.version = version
        self.requestHash = requestHash
    }
}
