import PaywallFormat
import XizorDomain

/// Named audiences for agents: list, create or replace, delete.
enum AudienceTools {
    static var tools: [MCPTool] { [list, set, delete] }

    static let audienceShape: JSONValue = [
        "type": "object",
        "properties": [
            "id": ["type": "string"], "name": ["type": "string"], "condition": ["type": "object"],
            "usedBy": ["type": "array", "items": ["type": "object"]],
        ],
        "required": ["id", "name", "condition", "usedBy"],
    ]

    static let list = MCPTool(
        name: "list_audiences", scope: .read, title: "List audiences",
        description:
            "Lists the app's named audiences: each id, name, condition and the rules that use it ({placement, rule}).",
        inputSchema: ToolSchema.object([:]),
        outputSchema: [
            "type": "object", "properties": ["items": ["type": "array", "items": audienceShape]], "required": ["items"],
        ],
        readOnly: true, idempotent: true
    ) { call in
        ["items": .array(try call.services.audiences.list(appID: call.appID).map(\.json))]
    }

    static let set = MCPTool(
        name: "set_audience", scope: .placements, title: "Create or replace an audience",
        description: """
            Creates or replaces a named audience: a condition written once (the same language as rule conditions, except \
            that it cannot refer to another audience) that rules use as {"audience": ID}. Live at once for every rule that \
            refers to it. Example: {"id": "power-users", "condition": {"all": [{"key": "subscriber.sessions", "op": "gte", \
            "value": 10}, {"key": "device.appVersion", "op": "semver_gte", "value": "2.0.0"}]}}.
            """,
        inputSchema: ToolSchema.object(
            [
                "id": ToolSchema.string("The audience id: \(AudienceService.idRule).", maxLength: 64),
                "name": ToolSchema.string("A name for people (default: the id).", maxLength: 200),
                "condition": ["$ref": "#/$defs/Condition"],
            ], required: ["id", "condition"], extra: ["$defs": ["Condition": PlacementTools.condition]]),
        outputSchema: audienceShape,
        readOnly: false, idempotent: true
    ) { call in
        var body: [String: JSONValue] = ["condition": try call.value("condition")]
        if let name = call.optionalString("name") { body["name"] = .string(name) }
        return try call.services.audiences.put(appID: call.appID, id: try call.string("id"), body: .object(body))
            .audience.json
    }

    static let delete = MCPTool(
        name: "delete_audience", scope: .placements, title: "Delete an audience",
        description:
            "Deletes a named audience. Refused (audience_in_use) while a rule refers to it: change those rules first.",
        inputSchema: ToolSchema.object(["id": ToolSchema.string("The audience id.", maxLength: 64)], required: ["id"]),
        outputSchema: ["type": "object", "properties": ["deleted": ["type": "string"]], "required": ["deleted"]],
        readOnly: false, destructive: true, idempotent: false
    ) { call in
        let id = try call.string("id")
        try call.services.audiences.delete(appID: call.appID, id: id)
        return ["deleted": .string(id)]
    }
}
