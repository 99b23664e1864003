/// A named audience as stored: its condition's canonical JSON text.
public struct StoredAudience: Sendable {
    public let id: String
    public let name: String
    public let condition: String
    public let createdAt: Int64
    public let updatedAt: Int64

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        id: String,
        name: String,
        condition: String,
        createdAt: Int64,
        updatedAt: Int64
    ) {
        self.id = id
        self.name = name
        self.condition = condition
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// All SQL of audiences.
public protocol AudienceStore {
    /// The app's audiences, by id.
    func audiences(appID: String) throws -> [StoredAudience]
    func audience(appID: String, id: String) throws -> StoredAudience?
    /// Creates or replaces; true when created.
    func upsert(appID: String, id: String, name: String, condition: String, now: Int64) throws -> Bool
    /// False when the app has no such audience.
    func delete(appID: String, id: String) throws -> Bool
}
