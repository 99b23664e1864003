import Storage
import XizorDomain

/// How both SQL stores read app and key rows: the same columns, the same decoding (the dialects differ
/// in their statements, not in their rows).
enum AppRows {
    static let appColumns = "id, name, created_at, archived_at, event_retention_days"

    static func app(_ row: Row) throws -> StoredApp {
        StoredApp(
            id: try row.get(0), name: try row.get(1), createdAt: try row.get(2), archivedAt: try row.get(3),
            eventRetentionDays: try row.get(4))
    }

    static let keyColumns =
        "k.id, k.kind, k.prefix, k.hash, k.app_id, k.created_at, k.revoked_at, k.label, k.scopes, k.environment"

    /// A row as a key; a kind this binary does not know is left out (it can authenticate nothing).
    static func key(_ row: Row) throws -> StoredKey? {
        guard let kind = StoredKey.Kind(rawValue: try row.get(1)) else { return nil }
        let environmentName: String = try row.get(9)
        // An environment this binary does not know: the key's events could not be labelled right.
        guard let environment = DataEnvironment(rawValue: environmentName) else { return nil }
        return StoredKey(
            id: try row.get(0), kind: kind, prefix: try row.get(2), hash: try row.get(3), appID: try row.get(4),
            createdAt: try row.get(5), revokedAt: try row.get(6), label: try row.get(7),
            scopes: ScopeSet(storedText: try row.get(8)), environment: environment)
    }
}
