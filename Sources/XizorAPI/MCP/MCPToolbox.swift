import PaywallFormat
import XizorDomain

/// Every tool of the endpoint, and the one place a `tools/call` is checked and run: unknown tool
/// and arguments that fail the input schema are caught here; a `ServiceError` from the service
/// becomes a tool result with `isError` (never a protocol error).
struct MCPToolbox: Sendable {
    let services: XizorServices
    let previews: PreviewService
    let tools: [MCPTool]
    private let byName: [String: (tool: MCPTool, validator: ArgumentSchemaValidator)]

    /// Every tool, by aggregate.
    static var all: [MCPTool] {
        PaywallTools.tools + VersionTools.tools + DraftTools.tools + PlacementTools.tools + TemplateTools.tools
            + AnalyticsTools.tools
            + ExperimentTools.tools + PreviewTools.tools + AssetTools.tools + AudienceTools.tools + RevenueTools.tools
    }

    init(services: XizorServices, previews: PreviewService) {
        self.services = services
        self.previews = previews
        tools = MCPToolbox.all
        byName = Dictionary(
            tools.map { ($0.name, ($0, ArgumentSchemaValidator(root: $0.inputSchema))) },
            uniquingKeysWith: { a, _ in a })
    }

    /// The tools the caller's key may call: `tools/list` shows no others.
    func tools(for caller: AppCaller) -> [MCPTool] { tools.filter { caller.scopes.contains($0.scope) } }

    /// The outcome of a call: a `CallToolResult`, or a protocol error for the caller to answer.
    func call(name: String, arguments: JSONValue, caller: AppCaller, protocolVersion: String) -> Result<
        JSONValue, JSONRPCError
    > {
        guard let entry = byName[name] else {
            return .failure(
                JSONRPCError(
                    .invalidParams, "Unknown tool '\(name)'.",
                    data: ["tools": .array(tools.map { .string($0.name) })]))
        }
        // A tool the key may not call is answered like its REST route: the same 403 problem.
        guard caller.scopes.contains(entry.tool.scope) else {
            return .success(MCPToolbox.errorResult(caller.scopes.missing(entry.tool.scope)))
        }
        let issues = entry.validator.validate(arguments)
        if !issues.isEmpty {
            let detail = "The arguments of \(name) do not match its input schema (\(issues.count) problem(s))."
            if MCPProtocolVersion.reportsArgumentErrorsAsToolResults(protocolVersion) {
                return .success(
                    MCPToolbox.errorResult(ServiceError(.unprocessable, "invalid_arguments", detail, errors: issues)))
            }
            return .failure(JSONRPCError(.invalidParams, detail, data: ["errors": .array(issues.map(\.json))]))
        }
        do {
            // The request's actor (set by the `/mcp` route), recorded as writing through MCP.
            let structured = try WriteActor.$current.withValue(WriteActor.current.via(.mcp)) {
                try entry.tool.run(
                    ToolCall(caller: caller, services: services, previews: previews, arguments: arguments))
            }
            return .success([
                "content": [["type": "text", "text": .string(structured.canonicalString)]],
                "structuredContent": structured, "isError": false,
            ])
        } catch let error as ServiceError {
            return .success(MCPToolbox.errorResult(error))
        } catch {
            return .success(
                MCPToolbox.errorResult(ServiceError(.unavailable, "internal_error", "The tool failed: \(error)")))
        }
    }

    /// A failed call as a tool result: the same problem fields the REST API answers, with the
    /// validator's paths in `errors`.
    static func errorResult(_ error: ServiceError) -> JSONValue {
        var problem: [String: JSONValue] = [
            "status": .number(error.status), "code": .string(error.code), "detail": .string(error.detail),
        ]
        if !error.errors.isEmpty || error.kind == .unprocessable {
            problem["errors"] = .array(error.errors.map(\.json))
        }
        for (name, value) in error.members { problem[name] = value }
        let structured: JSONValue = ["error": .object(problem)]
        return [
            "content": [["type": "text", "text": .string(structured.canonicalString)]], "structuredContent": structured,
            "isError": true,
        ]
    }
}
