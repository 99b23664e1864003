import HTTP
import PaywallFormat

/// Templates and stateless validation (secret key).
struct TemplateRoutes {
    let auth: Authenticator

    func register(in router: inout Router) {
        router.get("/v1/templates") { request in
            _ = try auth.secretApp(request)
            let items: [JSONValue] = PaywallTemplates.names.compactMap { name in
                guard let document = PaywallTemplates.document(named: name) else { return nil }
                return ["name": .string(name), "title": document["name"] ?? .string(name), "locales": document["locales"] ?? []]
            }
            return APIResponse.json(["templates": .array(items)])
        }
        router.get("/v1/templates/:name") { request in
            _ = try auth.secretApp(request)
            let name = request.parameter("name")
            guard let document = PaywallTemplates.document(named: name) else {
                throw ServiceError(.notFound, "template_not_found", "No template '\(name)'; use one of \(PaywallTemplates.names.joined(separator: ", ")).")
            }
            return APIResponse.json(["name": .string(name), "document": document])
        }
        router.post("/v1/validate") { request in
            _ = try auth.secretApp(request)
            let body = try request.jsonBody()
            // Accept the document itself or {"document": {...}}.
            let document = body.objectValue?.count == 1 ? (body["document"] ?? body) : body
            return APIResponse.json(PaywallValidator.validate(document).json)
        }
    }
}
