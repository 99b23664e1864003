import PaywallFormat

/// Read-only helpers around the editor: the templates and the funnel per version.
enum CatalogTools {
    static var tools: [MCPTool] { [listTemplates, analytics] }

    static let listTemplates = MCPTool(
        name: "list_templates", title: "List templates",
        description: """
            Lists the built-in paywall templates (name, title, locales) to start create_paywall from. Give 'name' to also get \
            that template's complete document, a good reference for the document format.
            """,
        inputSchema: ToolSchema.object(["name": ToolSchema.string("A template name, to include its document.", oneOf: PaywallTemplates.names)]),
        outputSchema: ["type": "object", "properties": ["templates": ["type": "array"], "document": ["type": "object"]], "required": ["templates"]],
        readOnly: true, idempotent: true
    ) { call in
        let items: [JSONValue] = PaywallTemplates.all.map { template in
            ["name": .string(template.name), "title": template.document["name"] ?? .string(template.name),
             "locales": template.document["locales"] ?? []]
        }
        var answer: JSONValue = ["templates": .array(items)]
        if let name = call.optionalString("name") {
            guard let document = PaywallTemplates.document(named: name) else {
                throw ServiceError(.notFound, "template_not_found", "No template '\(name)'.")
            }
            answer["document"] = document
        }
        return answer
    }

    static let analytics = MCPTool(
        name: "get_paywall_analytics", title: "Funnel per version",
        description: """
            Answers a paywall's funnel per published version (impressions, closes, purchases started / completed / failed / \
            cancelled, restores; counts and distinct subscribers), so versions can be compared after each publish. Optionally \
            cut by time (from inclusive, to exclusive), placement and presentation-context values.
            """,
        inputSchema: ToolSchema.object([
            "paywallId": ToolSchema.paywallID,
            "from": time("Only events at or after this time"),
            "to": time("Only events before this time"),
            "placement": ToolSchema.placementKey,
            "context": ToolSchema.context,
        ], required: ["paywallId"]),
        readOnly: true, idempotent: true
    ) { call in
        var filter = AnalyticsService.Filter()
        filter.from = try PaywallRoutes.time(call.arguments["from"].map(timeText), name: "from")
        filter.to = try PaywallRoutes.time(call.arguments["to"].map(timeText), name: "to")
        filter.placement = call.optionalString("placement")
        filter.context = call.presentationContext()
        return try call.services.analytics.funnel(appID: call.appID, paywallID: try call.string("paywallId"), filter: filter)
    }

    /// A time argument as the REST query parameter takes it: ms since 1970 or an RFC 3339 date-time.
    private static func time(_ description: String) -> JSONValue {
        ["description": .string("\(description): integer milliseconds since 1970, or an RFC 3339 date-time such as 2026-11-30T00:00:00Z."),
         "type": ["integer", "string"], "minimum": 0, "minLength": 1]
    }

    private static func timeText(_ value: JSONValue) -> String { value.stringValue ?? value.canonicalString }
}
