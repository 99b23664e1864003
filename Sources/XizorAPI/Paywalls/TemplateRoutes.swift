import HTTP
import PaywallFormat
import XizorDomain

/// Templates and stateless validation (secret key).
struct TemplateRoutes {

    func register(in routes: inout APIRoutes) {
        routes.secret(
            .GET, "/v1/templates", scope: .read,
            OperationDoc(
                "listTemplates", summary: "List the built-in templates", tag: "templates",
                responses: [.json(200, "The templates.", APISchemas.ref("TemplateList"))])
        ) { request, _ in
            let items: [JSONValue] = try PaywallTemplates.all().map { name, document in
                [
                    "name": .string(name), "title": document["name"] ?? .string(name),
                    "locales": document["locales"] ?? [],
                ]
            }
            return APIResponse.json(["templates": .array(items)])
        }
        routes.secret(
            .GET, "/v1/templates/:name", scope: .read,
            OperationDoc(
                "getTemplate", summary: "Read a template's document", tag: "templates",
                parameters: [
                    .path(
                        "name", "A template name.",
                        schema: ["enum": .array(PaywallTemplates.names.map(JSONValue.string))])
                ],
                responses: [.json(200, "The template.", APISchemas.ref("Template"))])
        ) { request, _ in
            let name = request.parameter("name")
            guard let document = try PaywallTemplates.document(named: name) else {
                throw ServiceError(
                    .notFound, "template_not_found",
                    "No template '\(name)'; use one of \(PaywallTemplates.names.joined(separator: ", ")).")
            }
            return APIResponse.json(["name": .string(name), "document": document])
        }
        routes.secret(
            .POST, "/v1/validate", scope: .read,
            OperationDoc(
                "validateDocument", summary: "Validate a document without storing it",
                description:
                    "The body is the document itself, or `{\"document\": {...}}` (such as what GET …/draft answers).",
                tag: "templates",
                requestBody: [
                    "description":
                        "A paywall document. Any JSON is accepted: what is not a valid document is reported in the answer."
                ],
                responses: [
                    .json(
                        200, "The validation: every error with its path, and warnings.",
                        APISchemas.ref("ValidationResult"))
                ])
        ) { request, _ in
            let body = try request.jsonBody()
            let document = DraftEnvelope.document(in: body)
            return APIResponse.json(PaywallValidator.validate(document).json)
        }
    }
}
