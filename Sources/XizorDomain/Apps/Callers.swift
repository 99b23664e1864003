/// Who called, as the routes' authentication verified it and the services record it (the audit
/// log's actor, an asset's uploader): values, so the domain needs nothing of HTTP to know them.
/// The caller of a dashboard or SDK route: the app its key belongs to, and which key it was.
public struct AppCaller: Sendable, Equatable {
    public let appID: String
    public let keyID: String
    /// What the key may do (a secret key's scopes; `all` for a public key, whose kind decides).
    public var scopes: ScopeSet = .all
    /// The environment of a public key, which its events take.
    public var environment: DataEnvironment = .production
    /// The person, when a signed-in person called (then `keyID` is their session's id).
    public var user: ActingUser?

    public init(
        appID: String, keyID: String, scopes: ScopeSet = .all, environment: DataEnvironment = .production,
        user: ActingUser? = nil
    ) {
        self.appID = appID
        self.keyID = keyID
        self.scopes = scopes
        self.environment = environment
        self.user = user
    }

    package init(appID: String, key: VerifiedKey) {
        self.init(appID: appID, keyID: key.id, scopes: key.scopes, environment: key.environment, user: key.user)
    }
}

/// The caller of an admin route: which admin token it presented.
public struct AdminCaller: Sendable, Equatable {
    public let keyID: String
    /// The instance admin, when a signed-in person called (then `keyID` is their session's id).
    public let user: ActingUser?
    package init(keyID: String, user: ActingUser? = nil) {
        self.keyID = keyID
        self.user = user
    }
}
