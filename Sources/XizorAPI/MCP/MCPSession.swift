import PaywallFormat
import XizorDomain

/// The MCP methods of a stateless, tools-only server: `initialize`, `ping`, `tools/list`,
/// `tools/call`; notifications are accepted and need no answer. No session state is kept, so
/// every request stands alone (the negotiated version arrives in `MCP-Protocol-Version`).
struct MCPSession: Sendable {
    static let serverName = "xizor"
    /// The server's release as `xizor version` prints it, when the caller passes none.
    static let defaultServerVersion = "0.1.0"
    static let instructions = """
        Xizor hosts mobile paywalls. Typical flow: list_templates → create_paywall → get_paywall (read the draft and its \
        revision) → update_paywall_draft / localize_paywall → validate_paywall_document → publish_paywall → assign_placement \
        → set_placement_rules → resolve_placement to check. Failed calls come back as tool results with isError and the \
        problem's code, detail and JSON paths.
        """

    let toolbox: MCPToolbox
    let serverVersion: String

    /// Answers one message; nil for notifications and responses (nothing to send back).
    func handle(_ message: JSONRPCMessage, caller: AppCaller, protocolVersion: String, inBatch: Bool) -> JSONValue? {
        switch message {
        case .response, .notification:
            return nil
        case .invalid(let id, let error):
            return JSONRPCMessage.failure(id: id, error)
        case .request(let id, let method, let params):
            switch answer(
                method: method, params: params, caller: caller, protocolVersion: protocolVersion, inBatch: inBatch)
            {
            case .success(let result): return JSONRPCMessage.result(id: id, result)
            case .failure(let error): return JSONRPCMessage.failure(id: id, error)
            }
        }
    }

    private func answer(method: String, params: JSONValue?, caller: AppCaller, protocolVersion: String, inBatch: Bool)
        -> Result<JSONValue, JSONRPCError>
    {
        if let params, params.objectValue == nil {
            return .failure(JSONRPCError(.invalidParams, "MCP params are a JSON object."))
        }
        switch method {
        case "initialize":
            if inBatch {
                return .failure(JSONRPCError(.invalidRequest, "initialize must not be part of a JSON-RPC batch."))
            }
            guard let requested = params?["protocolVersion"]?.stringValue else {
                return .failure(
                    JSONRPCError(
                        .invalidParams,
                        "initialize needs params.protocolVersion (a string such as \"\(MCPProtocolVersion.latest)\")."))
            }
            return .success(initializeResult(version: MCPProtocolVersion.negotiate(requested: requested)))
        case "ping":
            return .success([:])
        case "tools/list":
            return .success(["tools": .array(toolbox.tools(for: caller).map(\.definition))])
        case "tools/call":
            guard let name = params?["name"]?.stringValue else {
                return .failure(JSONRPCError(.invalidParams, "tools/call needs params.name, the tool's name."))
            }
            let arguments = params?["arguments"] ?? .object([:])
            guard arguments.objectValue != nil else {
                return .failure(JSONRPCError(.invalidParams, "params.arguments is a JSON object."))
            }
            return toolbox.call(name: name, arguments: arguments, caller: caller, protocolVersion: protocolVersion)
        default:
            return .failure(
                JSONRPCError(
                    .methodNotFound,
                    "Method '\(method)' not found; this server offers initialize, ping, tools/list and tools/call."))
        }
    }

    private func initializeResult(version: String) -> JSONValue {
        [
            "protocolVersion": .string(version),
            "capabilities": ["tools": ["listChanged": false]],
            "serverInfo": [
                "name": .string(MCPSession.serverName), "title": "Xizor paywalls", "version": .string(serverVersion),
            ],
            "instructions": .string(MCPSession.instructions),
        ]
    }
}
