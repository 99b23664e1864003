import PaywallFormat
import XizorDomain

/// The funnel per published version, for agents comparing versions after a publish.
enum AnalyticsTools {
    static var tools: [MCPTool] { [analytics] }

    static let analytics = MCPTool(
        name: "get_paywall_analytics", scope: .analytics, title: "Funnel per version",
        description: """
            Answers a paywall's funnel per published version (impressions, closes, purchases started / completed / failed / \
            cancelled, restores; counts and distinct subscribers), so versions can be compared after each publish. Optionally \
            cut by time (from inclusive, to exclusive; counted in whole UTC hours, the answer's from and to say which), \
            placement and presentation-context values.
            """,
        inputSchema: ToolSchema.object(
            [
                "paywallId": ToolSchema.paywallID,
                "from": time("Only events at or after this time"),
                "to": time("Only events before this time"),
                "placement": ToolSchema.placementKey,
                "context": ToolSchema.context,
                "environment": [
                    "enum": ["production", "sandbox", "all"],
                    "description": "Which events to count (production unless asked).",
                ],
            ], required: ["paywallId"]),
        readOnly: true, idempotent: true
    ) { call in
        var filter = AnalyticsService.Filter()
        filter.from = try EventRoutes.time(call.arguments["from"].map(timeText), name: "from")
        filter.to = try EventRoutes.time(call.arguments["to"].map(timeText), name: "to")
        filter.placement = call.optionalString("placement")
        filter.context = call.presentationContext()
        filter.environment = try EnvironmentFilter.parse(call.optionalString("environment"))
        return try call.services.analytics.funnel(
            appID: call.appID, paywallID: try call.string("paywallId"), filter: filter)
    }

    /// A time argument as the REST query parameter takes it: ms since 1970 or an RFC 3339 date-time.
    private static func time(_ description: String) -> JSONValue {
        [
            "description": .string(
                "\(description): integer milliseconds since 1970, or an RFC 3339 date-time such as 2026-11-30T00:00:00Z."
            ),
            "type": ["integer", "string"], "minimum": 0, "minLength": 1,
        ]
    }

    private static func timeText(_ value: JSONValue) -> String { value.stringValue ?? value.canonicalString }
}
