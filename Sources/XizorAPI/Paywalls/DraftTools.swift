import PaywallFormat
import XizorDomain

/// Editing the draft: whole-document saves and merge patches, localization, validation.
enum DraftTools {
    static var tools: [MCPTool] { [update, patch, setTexts, localize, validate] }

    static let update = MCPTool(
        name: "update_paywall_draft", scope: .drafts, title: "Edit the draft",
        description: """
            Saves the paywall's draft, either replacing it with a whole 'document' or applying a JSON Merge Patch (RFC 7396) \
            in 'mergePatch': members you give replace those of the draft, objects merge recursively, null deletes a member, \
            arrays are replaced whole. 'revision' is required: the draft revision you read (get_paywall); when someone saved in \
            between, the edit fails with draft_revision_mismatch and you read and apply it again. The draft may be invalid; \
            the answer carries the new revision and the validation (every error with its JSON path). Nothing goes live until \
            publish_paywall.
            """,
        inputSchema: ToolSchema.object(
            [
                "paywallId": ToolSchema.paywallID,
                "revision": ToolSchema.revision,
                "document": ToolSchema.anyObject("The whole new draft document."),
                "mergePatch": ToolSchema.anyObject(
                    "An RFC 7396 merge patch applied to the current draft, e.g. {\"name\": \"Spring sale\", \"theme\": {\"colors\": {\"accent\": \"#FF5500\"}}}."
                ),
            ], required: ["paywallId", "revision"],
            extra: ["oneOf": [["required": ["document"]], ["required": ["mergePatch"]]]]),
        outputSchema: draftOutput,
        // It overwrites what it is given (a whole document, or whole arrays in a merge patch).
        readOnly: false, destructive: true, idempotent: false
    ) { call in
        let paywalls = call.services.paywalls
        let id = try call.string("paywallId")
        let revision = Int64(try call.int("revision"))
        if let document = call.arguments["document"] {
            return try paywalls.saveDraft(appID: call.appID, id: id, document: document, expectedRevision: revision)
                .json
        }
        return try paywalls.patchDraft(
            appID: call.appID, id: id, patch: try call.value("mergePatch"), expectedRevision: revision
        ).json
    }

    static let patch = MCPTool(
        name: "patch_paywall_draft", scope: .drafts, title: "Edit the draft precisely (JSON Patch)",
        description: """
            Applies an RFC 6902 JSON Patch to the draft: operations on JSON Pointer paths, applied in order, all or none.             Use it to change one element of an array without resending the array, e.g. [{"op": "test", "path":             "/texts/en/title", "value": "Go Pro"}, {"op": "replace", "path": "/texts/en/title", "value": "Go Premium"}] or             {"op": "add", "path": "/root/children/1", "value": {…}} (insert before index 1; "/-" appends). 'test' operations             make the edit conditional on what you read: when one fails nothing is written and the error says where             (patch_test_failed). 'revision' is required as for update_paywall_draft. diff_versions answers patches in             this form.
            """,
        inputSchema: ToolSchema.object(
            [
                "paywallId": ToolSchema.paywallID,
                "revision": ToolSchema.revision,
                "patch": [
                    "type": "array", "minItems": 1, "description": "RFC 6902 operations: {op, path, value?, from?}.",
                    "items": [
                        "type": "object", "required": ["op", "path"],
                        "properties": [
                            "op": ["enum": ["add", "remove", "replace", "move", "copy", "test"]],
                            "path": ["type": "string"], "from": ["type": "string"], "value": [:],
                        ],
                    ],
                ],
            ], required: ["paywallId", "revision", "patch"]),
        outputSchema: draftOutput,
        readOnly: false, destructive: true, idempotent: false
    ) { call in
        try call.services.paywalls.applyJSONPatch(
            appID: call.appID, id: try call.string("paywallId"), patch: try call.value("patch"),
            expectedRevision: Int64(try call.int("revision")), path: "$.patch"
        ).json
    }

    static let setTexts = MCPTool(
        name: "set_paywall_texts", scope: .drafts, title: "Edit texts by path, in any locale",
        description: """
            Sets texts of one locale by text path ({path: text}, paths as localize_paywall or GET …/draft/texts list them, \
            e.g. $.root.children[0].text), the default locale included: the safe way to change the source copy without \
            resending arrays (update_paywall_draft's merge patch would replace them whole). Other members of each text and \
            other locales are kept; a new locale is added to 'locales'. A path that names no text rejects the whole call \
            (unknown_text_path). 'revision' as for update_paywall_draft.
            """,
        inputSchema: ToolSchema.object(
            [
                "paywallId": ToolSchema.paywallID,
                "revision": ToolSchema.revision,
                "locale": ToolSchema.string(
                    "A locale tag, e.g. en, de, pt-BR (the default locale too).", maxLength: 35),
                "texts": [
                    "type": "object", "minProperties": 1, "additionalProperties": ["type": "string"],
                    "description": "Text path → new text (with its {{variables}} and **bold** / *italic* marks).",
                ],
            ], required: ["paywallId", "revision", "locale", "texts"]),
        outputSchema: draftOutput,
        readOnly: false, destructive: true, idempotent: true
    ) { call in
        var texts: [String: String] = [:]
        for (path, value) in call.arguments["texts"]?.objectValue ?? [:] { texts[path] = value.stringValue }
        return try call.services.paywalls.setTexts(
            appID: call.appID, id: try call.string("paywallId"), locale: try call.string("locale"),
            translations: texts, expectedRevision: Int64(try call.int("revision"))
        ).json
    }

    static let draftOutput: JSONValue = [
        "type": "object",
        "properties": [
            "paywallId": ["type": "string"], "revision": ["type": "integer"], "document": ["type": "object"],
            "validation": ToolSchema.validation,
        ],
        "required": ["paywallId", "revision", "document", "validation"],
    ]

    static let localize = MCPTool(
        name: "localize_paywall", scope: .drafts, title: "Localize a paywall",
        description: """
            Translates a paywall's draft into one locale, in two steps. (1) Call with 'paywallId' and 'locale' only: the \
            answer lists every text path with its 'source' (the default locale's text), the 'variables' ({{…}} placeholders) \
            and the **bold** / *italic* pair counts a translation must keep, the existing 'translation' if any, and the paths \
            still 'missing' or 'stale' (translated from a source text that has changed since: translate those again). (2) Call again with 'translations' ({path: translated text}, any subset of paths): each is checked \
            to keep exactly the source's variables and marks; when all pass they are written into the draft (adding the locale \
            to 'locales') and the answer lists what is still missing or stale; when any fails nothing is written and the error lists \
            each problem by path. Publish afterwards with publish_paywall.
            """,
        inputSchema: ToolSchema.object(
            [
                "paywallId": ToolSchema.paywallID,
                "locale": ToolSchema.string(
                    "Target locale tag, e.g. de, fr, pt-BR, zh-Hant-TW (not the default locale).", maxLength: 35),
                "translations": [
                    "type": "object", "minProperties": 1,
                    "description":
                        "Text path (exactly as step 1 lists it, e.g. $.root.children[0].text) → translated template.",
                    "additionalProperties": ["type": "string"],
                ],
                "revision": ToolSchema.integer(
                    "Optional: write only if the draft is still at this revision (from step 1's answer). "
                        + "Omit to write by path into whatever the draft is now.", minimum: 0),
            ], required: ["paywallId", "locale"]),
        outputSchema: [
            "type": "object",
            "properties": [
                "paywallId": ["type": "string"], "revision": ["type": "integer"], "locale": ["type": "string"],
                "missing": ["type": "array", "items": ["type": "string"]],
                "stale": ["type": "array", "items": ["type": "string"]], "complete": ["type": "boolean"],
            ],
            "required": ["paywallId", "revision", "locale", "missing", "stale", "complete"],
        ],
        readOnly: false, idempotent: true
    ) { call in
        let paywalls = call.services.paywalls
        let id = try call.string("paywallId")
        let locale = try call.string("locale")
        guard let translations = call.arguments["translations"]?.objectValue else {
            return try paywalls.localizationWorklist(appID: call.appID, id: id, locale: locale).json
        }
        let outcome = try paywalls.translate(
            appID: call.appID, id: id, locale: locale,
            translations: translations.compactMapValues(\.stringValue),
            expectedRevision: call.optionalInt64("revision"))
        return [
            "paywallId": .string(id), "revision": .number(Int(outcome.draft.revision)), "locale": .string(locale),
            "written": .array(outcome.written.map { .string($0) }),
            "missing": .array(outcome.worklist.missing.map { .string($0.path) }),
            "missingTexts": .array(outcome.worklist.missing.map(\.json)),
            "stale": .array(outcome.worklist.stale.map { .string($0.path) }),
            "complete": .bool(outcome.worklist.missing.isEmpty && outcome.worklist.stale.isEmpty),
            "locales": .array(outcome.worklist.locales.map { .string($0) }),
            "validation": outcome.draft.validation.json,
        ]
    }

    static let validate = MCPTool(
        name: "validate_paywall_document", scope: .read, title: "Validate a paywall document",
        description: """
            Validates a paywall document exactly as publishing does and answers {ok, errors, warnings}; each issue has a JSON \
            path like $.root.children[3].productSlot, a message and a stable code. Give a 'document', or a 'paywallId' to \
            validate that paywall's current draft. Never stores anything. An invalid document is a normal answer (ok: false), \
            not a tool error.
            """,
        inputSchema: ToolSchema.object(
            [
                "document": ToolSchema.anyObject(
                    "The paywall document to validate (schemaVersion 2 as the templates are, or 1)."),
                "paywallId": ToolSchema.paywallID,
            ], extra: ["oneOf": [["required": ["document"]], ["required": ["paywallId"]]]]),
        outputSchema: ToolSchema.validation,
        readOnly: true, idempotent: true
    ) { call in
        if let document = call.arguments["document"] { return PaywallValidator.validate(document).json }
        return try call.services.paywalls.draft(appID: call.appID, id: try call.string("paywallId")).validation.json
    }
}
