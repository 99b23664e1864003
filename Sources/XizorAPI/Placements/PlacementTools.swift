import PaywallFormat
import XizorDomain

/// Placements: which paywall each placement shows, its ordered rules, and the resolution dry run.
enum PlacementTools {
    static var tools: [MCPTool] { [assign, list, setRules, resolve] }

    static let assign = MCPTool(
        name: "assign_placement", scope: .placements, title: "Assign a paywall to a placement",
        description: """
            Points a placement (the key app code asks for, e.g. onboarding) at a paywall, or at an A/B experiment, creating \
            the placement when new. Live on the SDK's next request, no publish needed; the placement serves the paywall's \
            latest published version, so publish it first. The paywall must belong to this app and not be archived. With an \
            'experimentId' (and optionally a 'paywallId' served while the experiment is not running; by default its control) \
            subscribers are split among the experiment's variants. Answers the placement with its rules.
            """,
        inputSchema: ToolSchema.object(
            [
                "placement": ToolSchema.placementKey, "paywallId": ToolSchema.paywallID,
                "experimentId": ToolSchema.experimentID,
            ],
            required: ["placement"], extra: ["anyOf": [["required": ["paywallId"]], ["required": ["experimentId"]]]]),
        outputSchema: placementShape,
        readOnly: false, idempotent: true
    ) { call in
        try call.services.placements.assign(
            appID: call.appID, key: try call.string("placement"), paywallID: call.optionalString("paywallId"),
            experimentID: call.optionalString("experimentId")
        ).json
    }

    static let list = MCPTool(
        name: "list_placements", scope: .read, title: "List placements",
        description: "Lists the app's placements with the paywall each points at and its ordered rules.",
        inputSchema: ToolSchema.object([:]),
        outputSchema: [
            "type": "object", "properties": ["items": ["type": "array", "items": placementShape]],
            "required": ["items"],
        ],
        readOnly: true, idempotent: true
    ) { call in
        ["items": .array(try call.services.placements.list(appID: call.appID).map(\.json))]
    }

    static let setRules = MCPTool(
        name: "set_placement_rules", scope: .placements, title: "Set a placement's rules",
        description: """
            Replaces a placement's ordered rules. On each SDK request the first rule whose 'when' condition matches the \
            presentation context, and whose paywall has a published version, wins; otherwise the placement's own paywall \
            serves. A rule targets a 'paywallId' or an 'experimentId' (or both: the paywall serves while the experiment is \
            not running). A condition is {"all": [C…]}, {"any": [C…]}, {"not": C}, {"audience": ID} (a named audience, \
            set_audience), {"rollout": {"percent": P}} (a stable share of subscribers; the server adds a seed: keep it when \
            rewriting the rules) or {"key": K, "op": OP, "value": V}. K is context.NAME (or a bare NAME: the app's \
            context.NAME=VALUE), device.platform / device.appVersion / device.sdkVersion / device.osVersion / device.locale / \
            device.country (request attributes), or subscriber.NAME (stored subscriber attributes). OP is one of \
            \(Condition.Operator.allCases.map(\.rawValue).joined(separator: " ")): 'in'/'not_in' take an array, 'between' \
            [low, high], 'exists' no value, 'semver_*' a version string (compare app versions with these: 1.9.0 < 1.10.0). \
            Values compare within one type (string, number, boolean); a key missing from the request matches only under 'not'. \
            Optional activeFrom / activeUntil (ms since 1970) schedule a rule; frequencyCap {"count": N, "per": "day"} \
            (or "seconds") skips it for a subscriber shown it N times in that interval. An empty list removes all rules. The \
            placement must exist (assign_placement). Live at once; try it with resolve_placement (its trace says why each \
            rule matched or not).
            """,
        inputSchema: ToolSchema.object(
            [
                "placement": ToolSchema.placementKey,
                "rules": [
                    "type": "array", "description": "Ordered rules, first match wins.",
                    "items": ToolSchema.object(
                        [
                            "when": ["$ref": "#/$defs/Condition"],
                            "paywallId": ToolSchema.paywallID,
                            "experimentId": ToolSchema.experimentID,
                            "activeFrom": ToolSchema.integer(
                                "Start of the rule's schedule, ms since 1970 (inclusive).", minimum: 0),
                            "activeUntil": ToolSchema.integer(
                                "End of the rule's schedule, ms since 1970 (exclusive).", minimum: 0),
                            "frequencyCap": ToolSchema.object(
                                [
                                    "count": ToolSchema.integer(
                                        "At most this many presentations per subscriber…", minimum: 1),
                                    "per": ToolSchema.string(
                                        "…per hour, day or week…", oneOf: ["hour", "day", "week"]),
                                    "seconds": ToolSchema.integer("…or per this many seconds.", minimum: 1),
                                ], required: ["count"]),
                        ], required: ["when"],
                        extra: ["anyOf": [["required": ["paywallId"]], ["required": ["experimentId"]]]]),
                ],
            ], required: ["placement", "rules"], extra: ["$defs": ["Condition": condition]]),
        outputSchema: placementShape,
        // It replaces the placement's rules whole: destructive.
        readOnly: false, destructive: true, idempotent: true
    ) { call in
        try call.services.placements.setRules(
            appID: call.appID, key: try call.string("placement"), rules: try call.value("rules")
        ).json
    }

    static let resolve = MCPTool(
        name: "resolve_placement", scope: .read, title: "Dry-run a placement",
        description: """
            Answers which paywall and version a placement would serve for a request, using the same resolution as the SDK \
            endpoint: paywallId, version, matchedRule (index of the winning rule, null when the placement's own target \
            serves), paywallArchived, the experiment assignment when an experiment decides (give 'subscriberId' to see that \
            subscriber's variant, rollouts, stored attributes and frequency caps; paywallId and version are null for an \
            experiment's holdout), and 'trace': every rule's outcome in order (matched, not_matched with the first condition \
            that failed and the value it saw, inactive, capped, target_unpublished, not_reached, budget_exhausted). A stored \
            subscriber attribute's value and a cap's count are shown only to a key with the analytics scope (reason 'hidden' \
            otherwise).
            """,
        inputSchema: ToolSchema.object(
            [
                "placement": ToolSchema.placementKey, "context": ToolSchema.context,
                "subscriberId": ToolSchema.string("The subscriber to resolve for.", maxLength: 200),
                "device": ToolSchema.object(
                    Dictionary(
                        uniqueKeysWithValues: RequestAttributes.Name.allCases.map {
                            (
                                $0.rawValue,
                                ToolSchema.string(
                                    "device.\($0.rawValue) as the request would send it.",
                                    maxLength: RequestAttributes.maxLength)
                            )
                        }), extra: ["description": "The request attributes rules read as device.NAME."]),
            ],
            required: ["placement"]),
        outputSchema: [
            "type": "object",
            "properties": [
                "placement": ["type": "string"], "paywallId": ["type": ["string", "null"]],
                "version": ["type": ["integer", "null"]], "matchedRule": ["type": ["integer", "null"]],
                "paywallArchived": ["type": "boolean"], "experiment": ["type": ["object", "null"]],
                "trace": ["type": "array", "items": ["type": "object"]], "fallback": ["type": "boolean"],
            ],
            "required": ["placement", "paywallId", "version", "matchedRule"],
        ],
        readOnly: true, idempotent: true
    ) { call in
        let device = try RequestAttributes(
            dryRunQuery: (call.arguments["device"]?.objectValue ?? [:]).sorted { $0.key < $1.key }.map {
                ("device.\($0.key)", $0.value.stringValue ?? $0.value.canonicalString)
            })
        var facts = RequestFacts(
            context: call.presentationContext(), subscriberID: call.optionalString("subscriberId"), device: device)
        return try call.services.serving.resolve(
            appID: call.appID, placement: try call.string("placement"), facts: &facts, trace: true
        )
        .visible(to: call.caller.scopes).json
    }

    static let placementShape: JSONValue = [
        "type": "object",
        "properties": ["key": ["type": "string"], "paywallId": ["type": "string"], "rules": ["type": "array"]],
        "required": ["key", "paywallId", "rules"],
    ]

    /// The spec sheet's `Condition`, recursive through `$defs`.
    static let condition: JSONValue = [
        "description":
            "A rule condition: all / any / not, a named audience, a percentage rollout, or a comparison of one key.",
        "anyOf": [
            ToolSchema.object(
                ["audience": ToolSchema.string("A named audience's id (list_audiences).", maxLength: 64)],
                required: ["audience"]),
            ToolSchema.object(
                [
                    "rollout": ToolSchema.object(
                        [
                            "percent": [
                                "type": "number", "minimum": 0, "maximum": 100,
                                "description": "The share of subscribers, up to two decimals.",
                            ],
                            "seed": ToolSchema.string(
                                "Keep the seed the server gave to keep the same subscribers.", maxLength: 64),
                        ], required: ["percent"])
                ], required: ["rollout"]),
            ToolSchema.object(["all": ["type": "array", "items": ["$ref": "#/$defs/Condition"]]], required: ["all"]),
            ToolSchema.object(["any": ["type": "array", "items": ["$ref": "#/$defs/Condition"]]], required: ["any"]),
            ToolSchema.object(["not": ["$ref": "#/$defs/Condition"]], required: ["not"]),
            ToolSchema.object(
                [
                    "key": ToolSchema.string(
                        "context.NAME (or NAME), device.NAME or subscriber.NAME, e.g. device.appVersion.",
                        maxLength: Condition.maxKeyLength),
                    "op": ToolSchema.string("The comparison.", oneOf: Condition.Operator.allCases.map(\.rawValue)),
                    "value": [
                        "description":
                            "The value to compare with: string, number or boolean; an array of them for in / not_in, [low, high] for between; a version string for semver_*; omitted for exists.",
                        "type": ["string", "number", "boolean", "array"],
                        "items": ["type": ["string", "number", "boolean"]],
                    ],
                ], required: ["key", "op"]),
        ],
    ]
}
