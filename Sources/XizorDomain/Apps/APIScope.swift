import PaywallFormat

/// What a secret key may do (docs/integrations.md, "Scoped keys"). Each secret route and MCP tool
/// names the one scope it needs where it is declared; admission checks it before the body is read.
public enum APIScope: String, CaseIterable, Sendable, Comparable {
    case read, drafts, publish, placements, experiments, analytics, keys, webhooks, members

    public static func < (a: APIScope, b: APIScope) -> Bool { a.rank < b.rank }

    /// The order scopes are listed in: the table of docs/integrations.md.
    private var rank: Int {
        switch self {
        case .read: 0
        case .drafts: 1
        case .publish: 2
        case .placements: 3
        case .experiments: 4
        case .analytics: 5
        case .keys: 6
        case .webhooks: 7
        case .members: 8
        }
    }
}

/// A key's scopes. `all` is what a key made without asking for fewer holds, including scopes added
/// in later releases (stored as NULL, not as today's list).
public struct ScopeSet: Sendable, Equatable {
    /// Nil: every scope, now and later.
    private let limited: Set<APIScope>?

    public static let all = ScopeSet(limited: nil)

    public init(_ scopes: some Sequence<APIScope>) { limited = Set(scopes) }
    private init(limited: Set<APIScope>?) { self.limited = limited }

    public var isFullAccess: Bool { limited == nil }

    public func contains(_ scope: APIScope) -> Bool { limited?.contains(scope) ?? true }

    /// Whether every scope of `other` is in this one (a key may only mint keys it could be).
    public func covers(_ other: ScopeSet) -> Bool {
        guard let limited else { return true }
        guard let wanted = other.limited else { return false }
        return wanted.isSubset(of: limited)
    }

    /// The scopes in declaration order (every scope for full access).
    public var sorted: [APIScope] { (limited.map(Array.init) ?? APIScope.allCases).sorted() }

    public var json: JSONValue { .array(sorted.map { .string($0.rawValue) }) }

    /// As stored: NULL for full access, else the names separated by spaces.
    public var storedText: String? { limited.map { _ in sorted.map(\.rawValue).joined(separator: " ") } }

    /// From the stored column; a name this binary does not know grants nothing (fail closed).
    public init(storedText: String?) {
        guard let storedText else {
            self = .all
            return
        }
        limited = Set(storedText.split(separator: " ").compactMap { APIScope(rawValue: String($0)) })
    }

    /// From a request's `scopes` array, each bad entry refused with its path.
    static func parse(_ value: JSONValue?, path: String) throws -> ScopeSet {
        guard let value, !value.isNull else { return .all }
        guard let items = value.arrayValue else {
            throw ServiceError.badField(path, "type_mismatch", "'scopes' is an array of scope names.")
        }
        guard !items.isEmpty else {
            throw ServiceError.badField(
                path, "empty_scopes", "A key needs at least one scope; leave 'scopes' out for full access.")
        }
        var scopes = Set<APIScope>()
        for (index, item) in items.enumerated() {
            guard let name = item.stringValue, let scope = APIScope(rawValue: name) else {
                let names = APIScope.allCases.map(\.rawValue).joined(separator: ", ")
                throw ServiceError.badField("\(path)[\(index)]", "invalid_enum_value", "A scope is one of \(names).")
            }
            scopes.insert(scope)
        }
        return ScopeSet(scopes)
    }

    /// The 403 of a key without `scope`.
    package func missing(_ scope: APIScope) -> ServiceError {
        let held = sorted.map(\.rawValue)
        return ServiceError(
            .forbidden, "missing_scope",
            "This needs the '\(scope.rawValue)' scope; the key has \(held.isEmpty ? "none" : held.joined(separator: ", ")).",
            members: ["scope": .string(scope.rawValue), "keyScopes": .array(held.map(JSONValue.string))])
    }

    package func require(_ scope: APIScope) throws {
        guard contains(scope) else { throw missing(scope) }
    }
}
