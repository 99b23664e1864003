import PaywallFormat
import XizorDomain

/// Versions for agents: list, publish, roll back, and compare (the same services as the REST routes).
enum VersionTools {
    static var tools: [MCPTool] { [listVersions, publish, rollback, diff] }

    static let listVersions = MCPTool(
        name: "list_versions", scope: .read, title: "List published versions",
        description: """
            Lists a paywall's published versions, newest first: number, schemaVersion, contentHash, publishedAt (ms since \
            1970), rolledBackFrom, the publisher's note and the id of the key that published it. Versions are immutable; \
            analytics are per version (get_paywall_analytics); diff_versions shows what changed between two.
            """,
        inputSchema: ToolSchema.object(["paywallId": ToolSchema.paywallID], required: ["paywallId"]),
        outputSchema: ["type": "object", "properties": ["items": ["type": "array"]], "required": ["items"]],
        readOnly: true, idempotent: true
    ) { call in
        let versions = try call.services.paywalls.versions(appID: call.appID, id: try call.string("paywallId"))
        return ["items": .array(versions.map { $0.json(includeDocument: false) })]
    }

    static let publish = MCPTool(
        name: "publish_paywall", scope: .publish, title: "Publish the draft",
        description: """
            Validates the draft strictly and, when valid, publishes it as the next immutable version; placements showing this \
            paywall serve it on the SDK's very next request. When the draft is invalid nothing is published and the result is \
            an error listing every problem with its JSON path (fix them with update_paywall_draft or patch_paywall_draft). \
            When the draft is the latest version already, nothing is created: the answer is that version with \
            'unchanged': true (pass 'force': true to publish it again anyway). Give a 'note' saying why (kept with the \
            version), and an 'idempotencyKey' to make a retry answer the first publish instead of creating a second version. \
            diff_versions without arguments shows what publishing would change. 'warnings' (when present) names locales \
            that lack texts or have stale translations (see localize_paywall).
            """,
        inputSchema: ToolSchema.object(
            [
                "paywallId": ToolSchema.paywallID,
                "idempotencyKey": ToolSchema.string(
                    "Any unique string (1 to 255 characters) naming this publish attempt.", maxLength: 255),
                "note": ToolSchema.string(
                    "Why this version is published (1 to 500 characters), kept with it.", maxLength: 500),
                "force": [
                    "type": "boolean", "description": "Publish even when the draft is the latest version already.",
                ],
            ], required: ["paywallId"]),
        outputSchema: versionOutput,
        readOnly: false, idempotent: false
    ) { call in
        let options = try PublishOptions.parse(call.arguments, path: "$", publishedBy: call.caller.keyID)
        return answer(
            try call.services.paywalls.publish(
                appID: call.appID, id: try call.string("paywallId"),
                idempotencyKey: call.optionalString("idempotencyKey"), options: options))
    }

    static let rollback = MCPTool(
        name: "rollback_paywall", scope: .publish, title: "Roll back to an earlier version",
        description: """
            Publishes an earlier version's document again as a new version (rolledBackFrom names it); placements showing \
            this paywall serve it on the SDK's very next request. The draft is left as it is. When that document is the \
            latest version's already, nothing is created ('unchanged': true) unless 'force' is true. Find versions with \
            list_versions and compare them with diff_versions first.
            """,
        inputSchema: ToolSchema.object(
            [
                "paywallId": ToolSchema.paywallID,
                "version": ToolSchema.integer("The version whose document goes live again.", minimum: 1),
                "note": ToolSchema.string("Why (1 to 500 characters), kept with the new version.", maxLength: 500),
                "force": [
                    "type": "boolean", "description": "Create the version even when that document is live already.",
                ],
            ], required: ["paywallId", "version"]),
        outputSchema: versionOutput,
        // It replaces what every placement of the paywall serves: destructive for the live state.
        readOnly: false, destructive: true, idempotent: false
    ) { call in
        let options = try PublishOptions.parse(call.arguments, path: "$", publishedBy: call.caller.keyID)
        return answer(
            try call.services.paywalls.rollback(
                appID: call.appID, id: try call.string("paywallId"),
                to: try call.int("version"), options: options))
    }

    static let diff = MCPTool(
        name: "diff_versions", scope: .read, title: "Compare versions (or a version and the draft)",
        description: """
            What changed, as RFC 6902 JSON Patch operations that turn 'from' into 'to' exactly (you can send them to \
            patch_paywall_draft). 'from' is a version number (default: the latest version; {} before the first publish); \
            'to' is a version number or "draft" (default). Without either: what publish_paywall would change.
            """,
        inputSchema: ToolSchema.object(
            [
                "paywallId": ToolSchema.paywallID,
                "from": ToolSchema.integer("A version number.", minimum: 1),
                "to": [
                    "description": "A version number or \"draft\".",
                    "oneOf": [["type": "integer", "minimum": 1], ["const": "draft"]],
                ],
            ], required: ["paywallId"]),
        outputSchema: [
            "type": "object",
            "properties": [
                "paywallId": ["type": "string"], "from": ["type": ["integer", "null"]],
                "to": ["oneOf": [["type": "integer"], ["const": "draft"]]], "operations": ["type": "array"],
            ],
            "required": ["paywallId", "from", "to", "operations"],
        ],
        readOnly: true, idempotent: true
    ) { call in
        let id = try call.string("paywallId")
        let from = call.optionalInt("from").map(PaywallService.DiffSide.version)
        let to: PaywallService.DiffSide? = call.arguments["to"].flatMap { value in
            value.stringValue == "draft" ? .draft : value.intValue.map(PaywallService.DiffSide.version)
        }
        let diff = try call.services.paywalls.diff(appID: call.appID, id: id, from: from, to: to)
        return [
            "paywallId": .string(id), "from": diff.from?.json ?? .null, "to": diff.to.json,
            "operations": .array(diff.operations.map(\.json)),
        ]
    }

    static let versionOutput: JSONValue = [
        "type": "object",
        "properties": [
            "paywallId": ["type": "string"], "version": ["type": "integer"], "contentHash": ["type": "string"],
            "note": ["type": ["string", "null"]], "replayed": ["type": "boolean"], "unchanged": ["type": "boolean"],
        ],
        "required": ["paywallId", "version", "replayed", "unchanged"],
    ]

    static func answer(_ result: PublishResult) -> JSONValue {
        var json = result.json
        json["replayed"] = .bool(result.outcome == .replayed)
        json["unchanged"] = .bool(result.outcome == .unchanged)
        return json
    }
}
