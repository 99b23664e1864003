import PaywallFormat

/// Who is writing: the audit log's `actor`, and a webhook event's. It travels as a task-local
/// value rather than a parameter of every service call: the three entry points set it once each —
/// `APIRoutes` for REST (from the verified key), `MCPToolbox` for tools, the CLI for its commands —
/// and every write below them records it, so no new write can forget to pass it. Outside those
/// (the server's own writes at start, tests calling services) it is `system`.
public struct WriteActor: Sendable, Equatable {
    public enum Kind: String, Sendable { case admin, secret, `public`, cli, system }
    public enum Channel: String, Sendable { case rest, mcp, cli, system }

    public let kind: Kind
    public let keyID: String?
    public let via: Channel
    public let requestID: String?

    public init(kind: Kind, keyID: String?, via: Channel, requestID: String?) {
        self.kind = kind
        self.keyID = keyID
        self.via = via
        self.requestID = requestID
    }

    @TaskLocal public static var current = WriteActor(kind: .system, keyID: nil, via: .system, requestID: nil)

    /// The CLI's commands, which hold no key.
    public static let cli = WriteActor(kind: .cli, keyID: nil, via: .cli, requestID: nil)

    package static func key(_ caller: AppCaller, kind: Kind, via: Channel, requestID: String?) -> WriteActor {
        WriteActor(kind: kind, keyID: caller.keyID, via: via, requestID: requestID.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The same actor reaching the write through another channel (a REST request to `/mcp`).
    package func via(_ channel: Channel) -> WriteActor {
        WriteActor(kind: kind, keyID: keyID, via: channel, requestID: requestID)
    }

    var json: JSONValue {
        ["kind": .string(kind.rawValue), "keyId": keyID.map(JSONValue.string) ?? .null, "via": .string(via.rawValue)]
    }
}
