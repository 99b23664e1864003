/// The MCP protocol revisions this server speaks, and what differs between them for a
/// stateless, tools-only server on Streamable HTTP.
enum MCPProtocolVersion {
    /// Newest first. 2024-11-05 is absent: it predates Streamable HTTP.
    static let supported = ["2025-11-25", "2025-06-18", "2025-03-26"]
    static let latest = supported[0]
    /// What the transport spec says to assume when a request carries no `MCP-Protocol-Version`.
    static let assumedWithoutHeader = "2025-03-26"

    /// The version `initialize` answers: the client's when supported, else our latest.
    static func negotiate(requested: String) -> String {
        supported.contains(requested) ? requested : latest
    }

    static func isSupported(_ version: String) -> Bool { supported.contains(version) }

    /// JSON-RPC batches were allowed by 2025-03-26 and removed in 2025-06-18.
    static func allowsBatches(_ version: String) -> Bool { version == "2025-03-26" }

    /// From 2025-11-25 (SEP-1303) arguments that fail a tool's input schema come back as a tool
    /// result with `isError`, so the model can correct itself; earlier revisions list them as
    /// protocol errors (-32602). Dates compare as strings.
    static func reportsArgumentErrorsAsToolResults(_ version: String) -> Bool { version >= "2025-11-25" }
}
