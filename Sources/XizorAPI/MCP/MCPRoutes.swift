import HTTP
import PaywallFormat
import XizorDomain

/// `POST /mcp`: the Model Context Protocol over Streamable HTTP, answered as plain
/// `application/json` (no SSE streams; `GET`/`DELETE /mcp` answer 405 with `Allow` from the
/// router). Authorised by the app's secret key like the dashboard API. Stateless: no
/// `Mcp-Session-Id` is issued, and one sent is ignored.
struct MCPRoutes {
    let services: XizorServices
    /// Pages for `preview_paywall` (rendered with the server's renderer settings).
    let previews: PreviewService
    /// The per-key limits: each message of a batch beyond the first pays its own token.
    let limits: RateLimits
    /// The most messages one batch may hold (`mcp.maxBatchMessages`).
    var maxBatchMessages = XizorApplication.Options.defaultMCPMaxBatchMessages
    /// Browser origins allowed to call the endpoint (the configured CORS origins); a request with
    /// any other `Origin` is refused with 403 (DNS-rebinding protection). Requests without
    /// `Origin` (non-browser clients) pass.
    var allowedOrigins: [String] = []
    /// The release `initialize` reports in `serverInfo.version`.
    var serverVersion: String = MCPSession.defaultServerVersion

    /// The handler of `POST /mcp`, for whichever route registry registers it.
    var handler: @Sendable (HTTPRequest, AppCaller) throws -> HTTPResponse {
        let endpoint = MCPEndpoint(
            session: MCPSession(
                toolbox: MCPToolbox(services: services, previews: previews), serverVersion: serverVersion),
            allowedOrigins: Set(allowedOrigins), limits: limits, maxBatchMessages: maxBatchMessages)
        return { request, caller in try endpoint.respond(to: request, caller: caller) }
    }

    func register(in routes: inout APIRoutes) {
        routes.secret(
            .POST, "/mcp", scope: nil,
            Self.mcp,
            handler)
    }
}

/// The transport rules of one POST: origin, key, headers, body, batches, and the HTTP status of
/// each kind of answer.
struct MCPEndpoint: Sendable {
    let session: MCPSession
    let allowedOrigins: Set<String>
    let limits: RateLimits
    let maxBatchMessages: Int

    func respond(to request: HTTPRequest, caller: AppCaller) throws -> HTTPResponse {
        // A person's session from the console's own origin may call (its admission checked that
        // origin; a DNS-rebound host never carries the real host's cookie). Other browser origins
        // only when configured.
        if let origin = request.header("Origin"), !allowedOrigins.contains(origin), !allowedOrigins.contains("*"),
            caller.user == nil || !SessionAdmission.isSameOrigin(request)
        {
            throw ServiceError(
                .forbidden, "origin_not_allowed",
                "Browser origin '\(origin)' may not call /mcp; only the configured CORS origins (cors.allowedOrigins) may."
            )
        }
        let appID = caller.appID
        if let accept = request.header("Accept"), !MCPEndpoint.acceptsJSON(accept) {
            throw HTTPError(
                .notAcceptable, code: "not_acceptable", detail: "/mcp answers application/json; list it in Accept.")
        }
        if let type = request.header("Content-Type")?.lowercased(), !type.hasPrefix("application/json") {
            throw ServiceError(
                .unsupportedMediaType, "unsupported_media_type",
                "Send JSON-RPC messages as application/json, not \(type).")
        }
        let body: JSONValue
        do { body = try JSONParser().parse(request.body) } catch {
            return MCPEndpoint.transportError(JSONRPCError(.parseError, "The body is not valid JSON: \(error)."))
        }
        let isInitialize = body["method"]?.stringValue == "initialize"
        var version = MCPProtocolVersion.assumedWithoutHeader
        if let header = request.header("MCP-Protocol-Version") {
            if MCPProtocolVersion.isSupported(header) {
                version = header
            } else if !isInitialize {
                return MCPEndpoint.transportError(
                    JSONRPCError(
                        .invalidRequest, "Unsupported MCP-Protocol-Version '\(header)'.",
                        data: ["supported": .array(MCPProtocolVersion.supported.map { .string($0) })]))
            }
        }
        if case .array(let elements) = body {
            guard MCPProtocolVersion.allowsBatches(version) else {
                return MCPEndpoint.transportError(
                    JSONRPCError(
                        .invalidRequest,
                        "JSON-RPC batches are not part of MCP \(version) (only 2025-03-26 allows them); send one message per POST."
                    ))
            }
            guard !elements.isEmpty else {
                return MCPEndpoint.transportError(JSONRPCError(.invalidRequest, "An empty JSON-RPC batch."))
            }
            guard elements.count <= maxBatchMessages else {
                return MCPEndpoint.transportError(
                    JSONRPCError(
                        .invalidRequest,
                        "A batch holds at most \(maxBatchMessages) messages (mcp.maxBatchMessages), not \(elements.count)."
                    ))
            }
            // The admission paid one write token for the request; every other message pays its
            // own, all or none, so a batch costs what the same messages sent one by one would.
            if elements.count > 1 {
                try limits.take(.writes, key: BucketKey(.secret(appID: appID)), tokens: elements.count - 1)
            }
            let answers = elements.compactMap {
                session.handle(JSONRPCMessage($0), caller: caller, protocolVersion: version, inBatch: true)
            }
            return answers.isEmpty ? HTTPResponse(status: .accepted) : MCPEndpoint.json(.array(answers), status: .ok)
        }
        let message = JSONRPCMessage(body)
        guard let answer = session.handle(message, caller: caller, protocolVersion: version, inBatch: false) else {
            return HTTPResponse(status: .accepted)
        }
        if case .invalid = message { return MCPEndpoint.json(answer, status: .badRequest) }
        return MCPEndpoint.json(answer, status: .ok)
    }

    /// A message the transport cannot accept at all: HTTP 400 with a JSON-RPC error without id.
    static func transportError(_ error: JSONRPCError) -> HTTPResponse {
        json(JSONRPCMessage.failure(id: .null, error), status: .badRequest)
    }

    static func json(_ value: JSONValue, status: HTTPStatus) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
            body: value.canonicalBytes)
    }

    /// Whether an `Accept` header admits `application/json`.
    static func acceptsJSON(_ accept: String) -> Bool {
        accept.split(separator: ",").contains { range in
            let type =
                range.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            return type == "application/json" || type == "application/*" || type == "*/*"
        }
    }
}
