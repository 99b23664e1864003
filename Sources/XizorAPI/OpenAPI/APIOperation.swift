import HTTP
import PaywallFormat
import XizorDomain

/// Which bearer key an operation needs. Set by the function that registers the route (see
/// `APIRoutes`); drives the OpenAPI `security`, the documented 401/403 answers and the admission.
public enum APIAuth: Sendable {
    case admin
    case secret
    case publicKey
    /// The app's public key as the `publicKey` path parameter (the SDK's cacheable path form: the
    /// URL, which a shared cache keys on, names the app; no `Authorization`, which caches refuse).
    case publicKeyInPath
    /// A signed-in person on their own routes (their session and sessions): the session cookie.
    case session
    case none

    /// The OpenAPI security requirements, any one of which admits: the admin token's and the secret
    /// key's routes also take a person's session (an instance admin's, a member's).
    var securitySchemes: [String] {
        switch self {
        case .admin: ["adminToken", "session"]
        case .secret: ["secretKey", "session"]
        case .publicKey: ["publicKey"]
        case .session: ["session"]
        case .publicKeyInPath, .none: []
        }
    }
}

/// A query or header parameter of an operation (path parameters come from the pattern).
public struct APIParameter: Sendable {
    public enum Location: String, Sendable { case query, header, path }
    public var name: String
    public var location: Location
    public var required: Bool
    public var description: String
    public var schema: JSONValue

    public static func query(
        _ name: String, _ description: String, schema: JSONValue = ["type": "string"], required: Bool = false
    ) -> APIParameter {
        APIParameter(name: name, location: .query, required: required, description: description, schema: schema)
    }
    public static func header(
        _ name: String, _ description: String, schema: JSONValue = ["type": "string"], required: Bool = false
    ) -> APIParameter {
        APIParameter(name: name, location: .header, required: required, description: description, schema: schema)
    }
    /// Overrides the default (a non-empty string) for a `:name` segment of the pattern.
    public static func path(
        _ name: String, _ description: String, schema: JSONValue = ["type": "string", "minLength": 1]
    ) -> APIParameter {
        APIParameter(name: name, location: .path, required: true, description: description, schema: schema)
    }
}

/// One documented answer of an operation. Bodies are JSON (`application/json`) unless `contentType` says
/// otherwise; `nil` schema means no body.
public struct APIResponseSpec: Sendable {
    public var status: Int
    public var description: String
    public var schema: JSONValue?
    public var contentType: String
    /// Response headers worth documenting (`ETag`, `Location`, …) → description.
    public var headers: [(String, String)]
    /// Other media types the same status may answer in (content negotiation), with their schemas.
    public var alternatives: [(contentType: String, schema: JSONValue)] = []

    public static func json(_ status: Int, _ description: String, _ schema: JSONValue, headers: [(String, String)] = [])
        -> APIResponseSpec
    {
        APIResponseSpec(
            status: status, description: description, schema: schema, contentType: "application/json", headers: headers)
    }
    /// The same answer in another media type as well (e.g. `text/html` beside JSON).
    public func or(_ contentType: String, _ schema: JSONValue) -> APIResponseSpec {
        var copy = self
        copy.alternatives.append((contentType, schema))
        return copy
    }
    public static func empty(_ status: Int, _ description: String) -> APIResponseSpec {
        APIResponseSpec(status: status, description: description, schema: nil, contentType: "", headers: [])
    }
    /// The `default` answer every operation documents: any other status, as a problem.
    public static let anyProblem = APIResponseSpec(
        status: 0, description: "Any other failure, as a problem.",
        schema: APISchemas.ref("Problem"), contentType: "application/problem+json", headers: [])

    /// A documented problem answer (`application/problem+json`) with why it happens.
    public static func problem(_ status: Int, _ description: String) -> APIResponseSpec {
        APIResponseSpec(
            status: status, description: description, schema: APISchemas.ref("Problem"),
            contentType: "application/problem+json", headers: [])
    }
}

/// The documentation of one route, declared next to its handler so the two cannot drift.
public struct OperationDoc: Sendable {
    public var operationID: String
    public var summary: String
    public var description: String?
    public var tag: String
    /// Set by `APIRoutes` from the registering function, never by the declaration itself.
    public internal(set) var auth: APIAuth = .none
    /// The scope a secret key needs (`x-xizor-scope`), set by `APIRoutes.secret` like `auth`.
    public internal(set) var scope: APIScope?
    public var parameters: [APIParameter]
    /// The JSON request body's schema, or nil when the operation takes no body.
    public var requestBody: JSONValue?
    public var requestBodyRequired: Bool
    /// The media types the body may be sent as (JSON unless the operation takes files).
    public var requestMediaTypes = ["application/json"]
    public var responses: [APIResponseSpec]

    public init(
        _ operationID: String, summary: String, description: String? = nil, tag: String,
        parameters: [APIParameter] = [], requestBody: JSONValue? = nil, requestBodyRequired: Bool = true,
        responses: [APIResponseSpec]
    ) {
        self.operationID = operationID
        self.summary = summary
        self.description = description
        self.tag = tag
        self.parameters = parameters
        self.requestBody = requestBody
        self.requestBodyRequired = requestBodyRequired
        self.responses = responses
    }
}

/// A registered route: method and pattern (`/v1/paywalls/:id`) with its documentation.
public struct APIOperation: Sendable {
    public let method: HTTPMethod
    public let pattern: String
    public let doc: OperationDoc

    /// The OpenAPI path: `/v1/paywalls/{id}`.
    public var openAPIPath: String {
        "/"
            + pattern.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(
                separator: "/")
    }

    /// The `:name` segments of the pattern, in order.
    public var pathParameterNames: [String] {
        pattern.split(separator: "/").filter { $0.hasPrefix(":") }.map { String($0.dropFirst()) }
    }
}
