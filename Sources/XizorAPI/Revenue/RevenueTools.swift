import PaywallFormat
import XizorDomain

/// Verified revenue for agents: the report, and the store settings.
enum RevenueTools {
    static var tools: [MCPTool] { [report, settings, updateSettings] }

    static let report = MCPTool(
        name: "get_revenue", scope: .analytics, title: "Verified revenue",
        description: """
            The App Store's and RevenueCat's own figures for the app (verified notifications, not what the app reported): \
            trial starts, trial → paid conversions, paid conversions, renewals, refunds, gross and net revenue per currency, \
            and net within 7/30/90 days of each subscription's credit; in total, attributed to a paywall presentation, and \
            unattributed. Per version and variant they are in get_paywall_analytics and get_experiment_results (`verified`).
            """,
        inputSchema: ToolSchema.object(
            [
                "environment": [
                    "enum": ["production", "sandbox", "all"],
                    "description": "Which notifications to count (production unless asked).",
                ]
            ], required: []),
        readOnly: true, idempotent: true
    ) { call in
        try call.services.revenue.report(
            appID: call.appID, environment: try EnvironmentFilter.parse(call.optionalString("environment")),
            from: nil, to: nil)
    }

    static let settings = MCPTool(
        name: "get_revenue_settings", scope: .webhooks, title: "Store settings",
        description: """
            The app's store settings: Apple's bundle id and app id with the URL to paste into App Store Connect, whether a \
            RevenueCat authorization is set (never its value) with the webhook URL, and the attribution window.
            """,
        inputSchema: ToolSchema.object([:], required: []), readOnly: true, idempotent: true
    ) { call in
        try call.services.revenue.settings(appID: call.appID).json(
            appID: call.appID, base: call.services.assets.location.publicOrigin ?? "")
    }

    static let updateSettings = MCPTool(
        name: "update_revenue_settings", scope: .webhooks, title: "Set store settings",
        description: """
            Merge-patches the app's store settings: apple {bundleId, appAppleId} (null removes), revenueCat {authorization} \
            (write-only; null removes), attributionWindowHours (1–720, default 24). Audited.
            """,
        inputSchema: ToolSchema.object(
            [
                "apple": [
                    "type": ["object", "null"],
                    "description": "Apple's notifications: the app's bundle id and Apple ID; null removes.",
                    "properties": [
                        "bundleId": ["type": "string", "minLength": 1, "maxLength": 255],
                        "appAppleId": ["type": ["integer", "null"], "minimum": 1],
                    ],
                ],
                "revenueCat": [
                    "type": ["object", "null"],
                    "description":
                        "RevenueCat's webhook: the Authorization value set there (write-only); null removes.",
                    "properties": ["authorization": ["type": "string", "minLength": 8, "maxLength": 500]],
                ],
                "attributionWindowHours": [
                    "type": "integer", "minimum": 1, "maximum": 720,
                    "description": "Hours before a purchase within which a presentation earns it (default 24).",
                ],
            ], required: []),
        readOnly: false, idempotent: true
    ) { call in
        try call.services.revenue.updateSettings(appID: call.appID, patch: call.arguments).json(
            appID: call.appID, base: call.services.assets.location.publicOrigin ?? "")
    }
}
