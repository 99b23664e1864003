/// Who called, as the routes' authentication verified it and the services record it (the audit
/// log's actor, an asset's uploader): values, so the domain needs nothing of HTTP to know them.
/// The caller of a dashboard or SDK route: the app its key belongs to, and which key it was.
public struct AppCaller: Sendable, Equatable {
    public let appID: String
    /// The rest, by one reference. Held field by field, a caller was built aside and copied out
    /// of its initialiser, then destroyed, for every request (about 300 instructions of each); a
    /// verified key now makes its caller once (`VerifiedKey.caller`), which its requests borrow.
    private let given: Given

    private final class Given: Sendable {
        let keyID: String
        let scopes: ScopeSet
        let environment: DataEnvironment
        let user: ActingUser?

        init(keyID: String, scopes: ScopeSet, environment: DataEnvironment, user: ActingUser?) {
            self.keyID = keyID
            self.scopes = scopes
            self.environment = environment
            self.user = user
        }
    }

    /// Which key called (a person's session id when a signed-in person called).
    public var keyID: String { given.keyID }
    /// What the key may do (a secret key's scopes; `all` for a public key, whose kind decides).
    public var scopes: ScopeSet { given.scopes }
    /// The environment of a public key, which its events take.
    public var environment: DataEnvironment { given.environment }
    /// The person, when a signed-in person called (then `keyID` is their session's id).
    public var user: ActingUser? { given.user }

    public init(
        appID: String, keyID: String, scopes: ScopeSet = .all, environment: DataEnvironment = .production,
        user: ActingUser? = nil
    ) {
        self.appID = appID
        given = Given(keyID: keyID, scopes: scopes, environment: environment, user: user)
    }

    public static func == (a: AppCaller, b: AppCaller) -> Bool {
        a.appID == b.appID && a.keyID == b.keyID && a.scopes == b.scopes && a.environment == b.environment
            && a.user == b.user
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
