import HTTP
import PaywallFormat
import XizorDomain

/// Templates and stateless validation (secret key).
struct TemplateRoutes {

    func register(in routes: inout APIRoutes) {
        routes.secret(.GET, "/v1/templates", scope: .read, Self.listTemplates) { request, _ in
            let items: [JSONValue] = try PaywallTemplates.all().map { name, document in
                [
                    "name": .string(name), "title": document["name"] ?? .string(name),
                    "locales": document["locales"] ?? [],
                ]
            }
            return APIResponse.json(["templates": .array(items)])
        }
        routes.secret(.GET, "/v1/templates/:name", scope: .read, Self.getTemplate) { request, _ in
            let name = request.parameter("name")
            guard let document = try PaywallTemplates.document(named: name) else {
                throw ServiceError(
                    .notFound, "template_not_found",
                    "No template '\(name)'; use one of \(PaywallTemplates.names.joined(separator: ", ")).")
            }
            return APIResponse.json(["name": .string(name), "document": document])
        }
        routes.secret(.POST, "/v1/validate", scope: .read, Self.validateDocument) { request, _ in
            let body = try request.jsonBody()
            let document = DraftEnvelope.document(in: body)
            return APIResponse.json(PaywallValidator.validate(document).json)
        }
    }
}
