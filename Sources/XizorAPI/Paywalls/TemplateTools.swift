import PaywallFormat
import XizorDomain

/// The built-in templates, for agents starting a paywall.
enum TemplateTools {
    static var tools: [MCPTool] { [listTemplates] }

    static let listTemplates = MCPTool(
        name: "list_templates", scope: .read, title: "List templates",
        description: """
            Lists the built-in paywall templates (name, title, locales) to start create_paywall from. Give 'name' to also get \
            that template's complete document, a good reference for the document format.
            """,
        inputSchema: ToolSchema.object([
            "name": ToolSchema.string("A template name, to include its document.", oneOf: PaywallTemplates.names)
        ]),
        outputSchema: [
            "type": "object", "properties": ["templates": ["type": "array"], "document": ["type": "object"]],
            "required": ["templates"],
        ],
        readOnly: true, idempotent: true
    ) { call in
        let items: [JSONValue] = try PaywallTemplates.all().map { template in
            [
                "name": .string(template.name), "title": template.document["name"] ?? .string(template.name),
                "locales": template.document["locales"] ?? [],
            ]
        }
        var answer: JSONValue = ["templates": .array(items)]
        if let name = call.optionalString("name") {
            guard let document = try PaywallTemplates.document(named: name) else {
                throw ServiceError(.notFound, "template_not_found", "No template '\(name)'.")
            }
            answer["document"] = document
        }
        return answer
    }
}
