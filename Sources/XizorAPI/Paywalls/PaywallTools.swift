import PaywallFormat
import XizorDomain

/// Paywalls: create, list, read (versions and publishing are VersionTools).
enum PaywallTools {
    static var tools: [MCPTool] { [create, list, get, rename, archive, unarchive] }

    static let create = MCPTool(
        name: "create_paywall", scope: .drafts, title: "Create a paywall",
        description: """
            Creates a paywall in this app and answers its summary (id, name, draftRevision). Start it blank (give neither \
            'template' nor 'document'), from a template ('template': cinematic, clean or lottie_delight; see list_templates), \
            or from a complete paywall document ('document'). The document becomes the draft as is, even if it is invalid; \
            the draft's validation is in get_paywall. Nothing is live until publish_paywall and assign_placement.
            """,
        inputSchema: ToolSchema.object(
            [
                "name": ToolSchema.string(
                    "Display name in the dashboard (1 to 200 characters). Defaults to the template's or document's name.",
                    maxLength: 200),
                "template": ToolSchema.string("Start from this template.", oneOf: PaywallTemplates.names),
                "document": ToolSchema.anyObject(
                    "A paywall document to start from (schemaVersion 2 as the templates are; 1 is read too); its id is replaced by the new paywall's id."
                ),
            ], extra: ["not": ["required": ["template", "document"]]]),
        readOnly: false, idempotent: false
    ) { call in
        let name = call.optionalString("name")
        let source: PaywallService.Source
        if let template = call.optionalString("template") {
            source = .template(template, name: name)
        } else if let document = call.arguments["document"] {
            source = .document(document, name: name)
        } else {
            source = .blank(name: name)
        }
        return try call.services.paywalls.create(appID: call.appID, from: source).json
    }

    static let list = MCPTool(
        name: "list_paywalls", scope: .read, title: "List paywalls",
        description: """
            Lists the app's paywalls that are not archived (with 'archived' true: the archived ones), oldest first, with \
            their id, name, draftRevision, latestVersion (null when never published) and the placements pointing at them. \
            Pages: pass the answer's nextCursor as 'cursor' to get the next page; nextCursor is null on the last page.
            """,
        inputSchema: ToolSchema.object([
            "archived": [
                "type": "boolean",
                "description": "true: list archived paywalls (to unarchive one) instead of live ones.",
            ],
            "cursor": ToolSchema.string("nextCursor from the previous page.", maxLength: 300),
            "limit": ToolSchema.integer(
                "Page size, 1 to \(PageSize.max) (default \(PageSize.fallback)).",
                minimum: 1, maximum: PageSize.max),
        ]),
        outputSchema: [
            "type": "object", "properties": ["items": ["type": "array"], "nextCursor": ["type": ["string", "null"]]],
            "required": ["items", "nextCursor"],
        ],
        readOnly: true, idempotent: true
    ) { call in
        let page = try call.services.paywalls.list(
            appID: call.appID, cursor: call.optionalString("cursor"),
            limit: call.optionalInt("limit") ?? PageSize.fallback,
            archived: call.arguments["archived"]?.boolValue ?? false)
        return ["items": .array(page.items.map(\.json)), "nextCursor": page.nextCursor.map { .string($0) } ?? .null]
    }

    static let get = MCPTool(
        name: "get_paywall", scope: .read, title: "Read a paywall",
        description: """
            Reads one paywall: its summary, and either its draft (document, revision, and validation with every error's JSON \
            path) or, with 'version', that published version's immutable document. Read the draft before update_paywall_draft: \
            its revision is what the edit must name.
            """,
        inputSchema: ToolSchema.object(
            [
                "paywallId": ToolSchema.paywallID,
                "version": ToolSchema.integer(
                    "A published version number (see list_versions); omit to read the draft.", minimum: 1),
            ], required: ["paywallId"]),
        outputSchema: [
            "type": "object",
            "properties": ["paywall": ["type": "object"], "draft": ["type": "object"], "version": ["type": "object"]],
            "required": ["paywall"],
        ],
        readOnly: true, idempotent: true
    ) { call in
        let id = try call.string("paywallId")
        let paywalls = call.services.paywalls
        let summary = try paywalls.summary(appID: call.appID, id: id).json
        if let number = call.optionalInt("version") {
            return [
                "paywall": summary,
                "version": try paywalls.version(appID: call.appID, id: id, version: number).json(includeDocument: true),
            ]
        }
        return ["paywall": summary, "draft": try paywalls.draft(appID: call.appID, id: id).json]
    }

    static let archive = MCPTool(
        name: "archive_paywall", scope: .publish, title: "Archive a paywall",
        description: """
            Archives a paywall: it leaves list_paywalls and cannot be published again. Placements and rules pointing at it \
            keep serving its last version until reassigned (the answer's 'warning' names them): assign another paywall \
            first if it should stop showing.
            """,
        inputSchema: ToolSchema.object(["paywallId": ToolSchema.paywallID], required: ["paywallId"]),
        readOnly: false, destructive: true, idempotent: true
    ) { call in
        try call.services.paywalls.archive(appID: call.appID, id: try call.string("paywallId")).archivedJSON
    }

    static let unarchive = MCPTool(
        name: "unarchive_paywall", scope: .publish, title: "Unarchive a paywall",
        description: """
            Makes an archived paywall live again (list_paywalls with archived true finds them): it is listed, can be \
            published and assigned again, its draft and versions as they were. A live paywall is answered unchanged.
            """,
        inputSchema: ToolSchema.object(["paywallId": ToolSchema.paywallID], required: ["paywallId"]),
        readOnly: false, idempotent: true
    ) { call in
        try call.services.paywalls.unarchive(appID: call.appID, id: try call.string("paywallId")).json
    }

    static let rename = MCPTool(
        name: "rename_paywall", scope: .drafts, title: "Rename a paywall",
        description: """
            Sets the paywall's name, which is its draft document's 'name' (a new draft revision; published versions keep \
            theirs until the next publish). Give 'revision' to rename only if the draft is still at that revision.
            """,
        inputSchema: ToolSchema.object(
            [
                "paywallId": ToolSchema.paywallID,
                "name": ToolSchema.string("The new name (1 to 200 characters).", maxLength: 200),
                "revision": ToolSchema.integer("Optional: the draft revision you read.", minimum: 0),
            ], required: ["paywallId", "name"]),
        readOnly: false, idempotent: true
    ) { call in
        try call.services.paywalls.rename(
            appID: call.appID, id: try call.string("paywallId"), name: try call.string("name"),
            expectedRevision: call.optionalInt64("revision")
        ).json
    }
}
