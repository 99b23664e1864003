import PaywallFormat

/// An app's key as listed: never the key itself, only its prefix.
public struct APIKeyInfo: Sendable, Equatable {
    public let id: String
    public let kind: String
    public let prefix: String
    public let createdAt: Int64
    public let revokedAt: Int64?
    public let label: String?
    public let scopes: ScopeSet
    public let environment: DataEnvironment

    init(_ key: StoredKey) {
        id = key.id
        kind = key.kind.rawValue
        prefix = key.prefix
        createdAt = key.createdAt
        revokedAt = key.revokedAt
        label = key.label
        scopes = key.scopes
        environment = key.environment
    }

    /// Secret keys list their scopes (and `fullAccess`), public keys their environment.
    public var json: JSONValue {
        var o: [String: JSONValue] = [
            "id": .string(id), "kind": .string(kind), "prefix": .string(prefix),
            "createdAt": .number(Int(createdAt)),
        ]
        o["revokedAt"] = revokedAt.map { .number(Int($0)) } ?? .null
        o["label"] = label.map(JSONValue.string) ?? .null
        if kind == StoredKey.Kind.secret.rawValue {
            o["scopes"] = scopes.json
            o["fullAccess"] = .bool(scopes.isFullAccess)
        }
        if kind == StoredKey.Kind.public.rawValue { o["environment"] = .string(environment.rawValue) }
        return .object(o)
    }

    /// The listing plus the key itself: what creating a key answers, this once.
    public func created(key: String) -> JSONValue {
        guard case .object(var object) = json else { return json }
        object["key"] = .string(key)
        return .object(object)
    }
}

extension StoredKey {
    /// A secret key with every scope: what the owner needs to manage everything (the last one is
    /// guarded against scoped keys, see `KeyService.revokeKey`).
    var isFullAccessSecret: Bool { kind == .secret && scopes.isFullAccess }
}

extension KeyService {
    /// What a new key is asked to be: its kind, label, a secret key's scopes, a public key's environment.
    public struct KeyRequest: Sendable {
        public var kind: String
        public var label: String?
        public var scopes: ScopeSet = .all
        public var environment: DataEnvironment = .production

        public init(
            kind: String, label: String? = nil, scopes: ScopeSet = .all, environment: DataEnvironment = .production
        ) {
            self.kind = kind
            self.label = label
            self.scopes = scopes
            self.environment = environment
        }

        /// `{kind, label?, scopes?, environment?}`, each bad field refused with its path.
        package static func parse(_ body: JSONValue) throws -> KeyRequest {
            var request = KeyRequest(
                kind: try body.optionalString("kind", path: "$") ?? "",
                label: try body.optionalString("label", path: "$"))
            if let scopes = body["scopes"], !scopes.isNull {
                guard request.kind != StoredKey.Kind.public.rawValue else {
                    throw ServiceError.badField(
                        "$.scopes", "scopes_on_public_key",
                        "Public keys have no scopes: they reach only the SDK routes.")
                }
                request.scopes = try ScopeSet.parse(scopes, path: "$.scopes")
            }
            if let name = try body.optionalString("environment", path: "$") {
                guard let environment = DataEnvironment(rawValue: name) else {
                    throw ServiceError.badField(
                        "$.environment", "invalid_enum_value", "An environment is 'production' or 'sandbox'.")
                }
                guard environment == .production || request.kind == StoredKey.Kind.public.rawValue else {
                    throw ServiceError.badField(
                        "$.environment", "environment_on_secret_key",
                        "Only public keys have an environment: it marks the events they send.")
                }
                request.environment = environment
            }
            return request
        }
    }
}
