import HTTP
import PaywallFormat
import XizorDomain

/// The OpenAPI description of each operation `MCPRoutes` registers, one table beside the routes so
/// their `register` reads as what each route does; `APIRoutes` puts both together when a route is
/// declared, so neither can be registered without the other.
extension MCPRoutes {
    static let mcp = OperationDoc(
        "mcp", summary: "The Model Context Protocol (Streamable HTTP, JSON answers)",
        description:
            "JSON-RPC 2.0 messages for the MCP tools (list, create, edit, localize, publish paywalls; placements; experiments). Stateless; no SSE. Browser origins outside `cors.allowedOrigins` get 403. See docs/mcp.md.",
        tag: "mcp",
        parameters: [.header("MCP-Protocol-Version", "The negotiated protocol version (after initialize).")],
        requestBody: [
            "type": ["object", "array"],
            "description": "A JSON-RPC message (or, in protocol 2025-03-26, a batch).",
        ],
        responses: [
            .json(200, "The JSON-RPC answer (or the batch's answers).", ["type": ["object", "array"]]),
            .empty(202, "Notifications and responses only: nothing to answer."),
            APIResponseSpec.json(
                400, "A message the transport cannot accept, as a JSON-RPC error.", ["type": "object"]
            )
            .or("application/problem+json", APISchemas.ref("Problem")),
            .problem(406, "Accept does not admit application/json."),
        ])
}
