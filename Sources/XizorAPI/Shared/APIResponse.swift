import HTTP
import PaywallFormat
import XizorDomain

/// Building answers: JSON bodies from `JSONValue`, and problems from `ServiceError`.
enum APIResponse {
    static func json(
        _ value: JSONValue, status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), etag: String? = nil
    ) -> HTTPResponse {
        var h = headers
        h["Content-Type"] = "application/json"
        return HTTPResponse(status: status, headers: h, body: value.canonicalBytes, etag: etag)
    }

    /// The `application/problem+json` form of a service error, with `errors` for validation.
    static func problem(_ error: ServiceError, headers: HTTPHeaders = HTTPHeaders()) -> HTTPError {
        var headers = headers
        if let seconds = error.retryAfterSeconds { headers.add("Retry-After", String(seconds)) }
        var extra: [(String, String)] = []
        if !error.errors.isEmpty || error.kind == .unprocessable {
            extra.append(("errors", JSONValue.array(error.errors.map(\.json)).canonicalString))
        }
        for (name, value) in error.members.sorted(by: { $0.key < $1.key }) {
            extra.append((name, value.canonicalString))
        }
        return HTTPError(
            HTTPStatus(error.status), code: error.code, detail: error.detail, headers: headers, extraMembers: extra)
    }
}

/// Turns a `ServiceError` thrown by any handler into its problem answer, so handlers just throw.
struct ServiceErrorMiddleware: HTTPMiddleware {
    func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse {
        do { return try next(request) } catch let error as ServiceError { return APIResponse.problem(error).response }
    }
}

extension HTTPRequest {
    /// The body as a JSON value; 400 with line and column when it is not JSON, 415 when declared
    /// as something else.
    func jsonBody(allowEmpty: Bool = false) throws -> JSONValue {
        try requireJSONContentType()
        return try JSONBody.parse(body, allowEmpty: allowEmpty)
    }

    /// 415 when the body is declared as something other than JSON (no `Content-Type` is taken as JSON).
    func requireJSONContentType() throws {
        if let type = header("Content-Type")?.lowercased(), !type.hasPrefix("application/json"), !type.contains("+json")
        {
            throw ServiceError(
                .unsupportedMediaType, "unsupported_media_type", "Send the body as application/json, not \(type).")
        }
    }

    /// A required path parameter (the router guarantees it exists for the route).
    func parameter(_ name: String) -> String { pathParameter(name) ?? "" }
    /// The same with its hash: computed once per memoised route (`pathParameterHashed`).
    func hashedParameter(_ name: String) -> HashedName {
        guard let (value, hash) = pathParameterHashed(name) else { return "" }
        return HashedName(value, hash: hash)
    }

    /// `context.KEY=VALUE` query parameters, typed.
    var presentationContext: PresentationContext {
        var context: PresentationContext = [:]
        for (name, value) in queryParameters where name.hasPrefix("context.") && name.count > 8 {
            context[String(name.dropFirst(8))] = ContextValue(queryValue: value)
        }
        return context
    }
}
