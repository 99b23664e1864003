import HTTP
import PaywallFormat
import XizorDomain

/// The OpenAPI description of each operation `TemplateRoutes` registers, one table beside the routes so
/// their `register` reads as what each route does; `APIRoutes` puts both together when a route is
/// declared, so neither can be registered without the other.
extension TemplateRoutes {
    static let listTemplates = OperationDoc(
        "listTemplates", summary: "List the built-in templates", tag: "templates",
        responses: [.json(200, "The templates.", APISchemas.ref("TemplateList"))])

    static let getTemplate = OperationDoc(
        "getTemplate", summary: "Read a template's document", tag: "templates",
        parameters: [
            .path(
                "name", "A template name.",
                schema: ["enum": .array(PaywallTemplates.names.map(JSONValue.string))])
        ],
        responses: [.json(200, "The template.", APISchemas.ref("Template"))])

    static let validateDocument = OperationDoc(
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
}
