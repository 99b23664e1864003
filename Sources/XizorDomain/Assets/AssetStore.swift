/// One stored asset's description (its bytes are read separately: lists never load them).
public struct AssetRow: Sendable, Equatable {
    public var appID: String
    public var sha256: String
    public var kind: String
    public var contentType: String
    public var size: Int64
    public var name: String?
    public var createdAt: Int64
    public var createdBy: String?

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        appID: String,
        sha256: String,
        kind: String,
        contentType: String,
        size: Int64,
        name: String? = nil,
        createdAt: Int64,
        createdBy: String? = nil
    ) {
        self.appID = appID
        self.sha256 = sha256
        self.kind = kind
        self.contentType = contentType
        self.size = size
        self.name = name
        self.createdAt = createdAt
        self.createdBy = createdBy
    }
}

/// All SQL of uploaded media.
public protocol AssetStore {
    /// Stores the asset unless the app has these bytes already; true when this call stored them.
    func insert(_ row: AssetRow, bytes: [UInt8]) throws -> Bool
    func row(appID: String, sha256: String) throws -> AssetRow?
    func bytes(appID: String, sha256: String) throws -> [UInt8]?
    /// Oldest first, after the cursor (created_at, sha256), as every paginated list.
    func list(appID: String, limit: Int, after cursor: PageCursor) throws -> [AssetRow]
    /// Bytes the app's assets take, for the per-app quota.
    func totalSize(appID: String) throws -> Int64
}
