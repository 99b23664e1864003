import HTTP
import PaywallFormat
import XizorDomain

/// Assembles the OpenAPI 3.1 document from the declared operations and the component schemas.
public enum OpenAPIDocument {
    public struct Info: Sendable {
        public var title: String
        public var version: String
        public var description: String
        public init(title: String = "Xizor API", version: String, description: String = Info.defaultDescription) {
            self.title = title
            self.version = version
            self.description = description
        }
        public static let defaultDescription = """
            Server-hosted paywalls. Send `Authorization: Bearer KEY`: the admin token creates apps, an app's \
            secret key (`sk_…`) uses the dashboard API, its public key (`pk_…`) only `/v1/sdk/*`. Request \
            bodies are `application/json` (415 otherwise). Errors are `application/problem+json`. \
            Guide: docs/api.md.
            """
    }

    public static func build(operations: [APIOperation], info: Info) -> JSONValue {
        var paths: [String: JSONValue] = [:]
        for operation in operations {
            var item = paths[operation.openAPIPath]?.objectValue ?? [:]
            item[operation.method.description.lowercased()] = self.operation(operation)
            paths[operation.openAPIPath] = .object(item)
        }
        var tags: [String] = []
        for operation in operations where !tags.contains(operation.doc.tag) { tags.append(operation.doc.tag) }
        return [
            "openapi": "3.1.0",
            "jsonSchemaDialect": .string(JSONSchemaGenerator.draft),
            "info": [
                "title": .string(info.title), "version": .string(info.version),
                "description": .string(info.description),
            ],
            "tags": .array(tags.map { ["name": .string($0)] }),
            "paths": .object(paths),
            "components": [
                "schemas": .object(APISchemas.all),
                "securitySchemes": securitySchemes,
            ],
        ]
    }

    static let securitySchemes: JSONValue = [
        "adminToken": [
            "type": "http", "scheme": "bearer",
            "description":
                "The admin token from the config or XIZOR_ADMIN_TOKEN (or printed once at first start). Creates apps.",
        ],
        "secretKey": [
            "type": "http", "scheme": "bearer",
            "description":
                "An app's secret key `sk_…`: everything in that app through the dashboard API and /mcp. Keep it on servers.",
        ],
        "publicKey": [
            "type": "http", "scheme": "bearer",
            "description": "An app's public key `pk_…`: only /v1/sdk/* of that app. Safe to ship in apps.",
        ],
        "session": [
            "type": "apiKey", "in": "cookie", "name": "__Host-xizor_session",
            "description":
                "A person's session from POST /v1/session (docs/teams.md). On an app's routes the app is named by `X-Xizor-App-Id` and the person's role decides the scopes; every unsafe request also needs `X-Xizor-CSRF` (the session's `csrfToken`) and this server's own `Origin`.",
        ],
    ]

    static func operation(_ operation: APIOperation) -> JSONValue {
        let doc = operation.doc
        var o: [String: JSONValue] = [
            "operationId": .string(doc.operationID),
            "summary": .string(doc.summary),
            "tags": [.string(doc.tag)],
        ]
        if let d = doc.description { o["description"] = .string(d) }
        o["security"] = .array(doc.auth.securitySchemes.map { .object([$0: []]) })
        if let scope = doc.scope { o["x-xizor-scope"] = .string(scope.rawValue) }

        var parameters: [JSONValue] = []
        for name in operation.pathParameterNames {
            let given = doc.parameters.first { $0.location == .path && $0.name == name }
            parameters.append(parameter(given ?? .path(name, "")))
        }
        for p in doc.parameters where p.location != .path { parameters.append(parameter(p)) }
        if !parameters.isEmpty { o["parameters"] = .array(parameters) }

        if let body = doc.requestBody {
            let content = Dictionary(
                uniqueKeysWithValues: doc.requestMediaTypes.map { ($0, ["schema": body] as JSONValue) })
            o["requestBody"] = ["required": .bool(doc.requestBodyRequired), "content": .object(content)]
        }

        var responses: [String: JSONValue] = [:]
        for r in doc.responses { responses[String(r.status)] = response(r) }
        func addDefault(_ status: Int, _ description: String) {
            if responses[String(status)] == nil { responses[String(status)] = response(.problem(status, description)) }
        }
        if doc.auth != .none {
            addDefault(401, "The key is missing, malformed, unknown or revoked.")
            addDefault(
                403,
                doc.scope.map {
                    "The key is of the wrong kind for this endpoint, or a secret key without the `\($0.rawValue)` scope (`missing_scope`)."
                }
                    ?? "The key is of the wrong kind for this endpoint.")
        }
        if !operation.pathParameterNames.isEmpty {
            addDefault(404, "Nothing with this id in the key's app (other apps' ids too).")
        }
        if doc.requestBody != nil {
            addDefault(400, "The body is missing or not JSON.")
            addDefault(415, "The body is not sent as application/json.")
            addDefault(422, "A field is invalid; `errors` lists each with its path.")
            addDefault(
                408, "The body did not arrive within `http.bodyDeadlineMs` (or stalled past `http.bodyReadTimeoutMs`).")
            addDefault(413, "The body is larger than `http.maxBodyBytes`.")
            addDefault(
                503,
                "`body_budget_exhausted`: the server holds `http.maxBufferedBodyBytes` of request bodies already; `storage_unavailable`: the database could not complete the write (restarting, failing over, full). Retry after `Retry-After` seconds."
            )
        }
        responses["default"] = response(.anyProblem)
        o["responses"] = .object(responses)
        return .object(o)
    }

    static func parameter(_ p: APIParameter) -> JSONValue {
        var o: [String: JSONValue] = [
            "name": .string(p.name), "in": .string(p.location.rawValue),
            "required": .bool(p.required), "schema": p.schema,
        ]
        if !p.description.isEmpty { o["description"] = .string(p.description) }
        return .object(o)
    }

    static func response(_ r: APIResponseSpec) -> JSONValue {
        var o: [String: JSONValue] = ["description": .string(r.description)]
        if let schema = r.schema {
            var content: [String: JSONValue] = [r.contentType: ["schema": schema]]
            for alternative in r.alternatives { content[alternative.contentType] = ["schema": alternative.schema] }
            o["content"] = .object(content)
        }
        if !r.headers.isEmpty {
            var headers: [String: JSONValue] = [:]
            for (name, description) in r.headers {
                headers[name] = ["description": .string(description), "schema": ["type": "string"]]
            }
            o["headers"] = .object(headers)
        }
        return .object(o)
    }
}
