import PaywallFormat

/// Who is writing: the audit log's `actor`, and a webhook event's. It travels as a task-local
/// value rather than a parameter of every service call: the three entry points set it once each —
/// `APIRoutes` for REST (from the verified key), `MCPToolbox` for tools, the CLI for its commands —
/// and every write below them records it, so no new write can forget to pass it. Outside those
/// (the server's own writes at start, tests calling services) it is `system`.
public struct WriteActor: Sendable, Equatable {
    public enum Kind: String, Sendable { case admin, secret, `public`, cli, system, user }
    public enum Channel: String, Sendable { case rest, mcp, cli, system }

    public let kind: Kind
    public let keyID: String?
    public let via: Channel
    public let requestID: String?
    /// The person, when a person signed in made the write (kind `user`).
    public let user: ActingUser?

    public init(kind: Kind, keyID: String?, via: Channel, requestID: String?, user: ActingUser? = nil) {
        self.kind = kind
        self.keyID = keyID
        self.via = via
        self.requestID = requestID
        self.user = user
    }

    @TaskLocal public static var current = WriteActor(kind: .system, keyID: nil, via: .system, requestID: nil)

    /// The CLI's commands, which hold no key.
    public static let cli = WriteActor(kind: .cli, keyID: nil, via: .cli, requestID: nil)

    /// The actor of a request admitted by a key, or by a person's session (then kind `user`, and
    /// no key).
    package static func key(_ caller: AppCaller, kind: Kind, via: Channel, requestID: String?) -> WriteActor {
        let requestID = requestID.flatMap { $0.isEmpty ? nil : $0 }
        if let user = caller.user {
            return WriteActor(kind: .user, keyID: nil, via: via, requestID: requestID, user: user)
        }
        return WriteActor(kind: kind, keyID: caller.keyID, via: via, requestID: requestID)
    }

    /// A person acting where no session admitted the request yet (signing in, accepting an
    /// invitation): through the current channel, with the current request's id.
    package static func person(_ user: ActingUser) -> WriteActor {
        WriteActor(
            kind: .user, keyID: nil, via: current.via == .system ? .rest : current.via, requestID: current.requestID,
            user: user)
    }

    /// The same actor reaching the write through another channel (a REST request to `/mcp`).
    package func via(_ channel: Channel) -> WriteActor {
        WriteActor(kind: kind, keyID: keyID, via: channel, requestID: requestID, user: user)
    }

    var json: JSONValue {
        var object: [String: JSONValue] = [
            "kind": .string(kind.rawValue), "keyId": keyID.map(JSONValue.string) ?? .null, "via": .string(via.rawValue),
        ]
        if let user {
            object["userId"] = .string(user.userID)
            object["email"] = .string(user.email)
            object["sessionId"] = user.sessionID.map(JSONValue.string) ?? .null
        }
        return .object(object)
    }
}

/// A signed-in person acting: who (the user and the email at the time) and through which session.
public struct ActingUser: Sendable, Equatable {
    public let userID: String
    public let email: String
    /// Nil for what happens before a session exists (a failed sign-in).
    public let sessionID: String?

    public init(userID: String, email: String, sessionID: String?) {
        self.userID = userID
        self.email = email
        self.sessionID = sessionID
    }
}
