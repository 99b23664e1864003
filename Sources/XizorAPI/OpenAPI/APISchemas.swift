import PaywallFormat

/// The component schemas of the OpenAPI document: the JSON shapes the routes answer and accept.
/// They describe exactly what the `json` properties of the service models produce (nullable fields
/// are `[type, "null"]`, closed objects say `additionalProperties: false`), so schemathesis can hold
/// the server to them.
public enum APISchemas {
    public static func ref(_ name: String) -> JSONValue { ["$ref": .string("#/components/schemas/\(name)")] }

    static let string: JSONValue = ["type": "string"]
    static let integer: JSONValue = ["type": "integer"]
    static let boolean: JSONValue = ["type": "boolean"]
    static let anyObject: JSONValue = ["type": "object"]
    static let millis: JSONValue = ["type": "integer", "description": "Milliseconds since 1970."]
    static func nullable(_ type: String, _ description: String? = nil) -> JSONValue {
        var s: JSONValue = ["type": [.string(type), "null"]]
        if let description { s["description"] = .string(description) }
        return s
    }
    static func array(_ items: JSONValue) -> JSONValue { ["type": "array", "items": items] }
    static func nonEmptyArray(_ items: JSONValue) -> JSONValue { ["type": "array", "items": items, "minItems": 1] }

    /// An answer's object: closed, every `required` member always present, `optional` ones may be.
    static func object(_ required: [String: JSONValue], optional: [String: JSONValue] = [:], description: String? = nil) -> JSONValue {
        var s = request(required, optional: optional, description: description)
        s["additionalProperties"] = false
        return s
    }

    /// A request body's object: the routes ignore members they do not know, so it stays open.
    static func request(_ required: [String: JSONValue], optional: [String: JSONValue] = [:], description: String? = nil) -> JSONValue {
        var s: JSONValue = [
            "type": "object",
            "properties": .object(required.merging(optional) { a, _ in a }),
            "required": .array(required.keys.sorted().map(JSONValue.string)),
        ]
        if let description { s["description"] = .string(description) }
        return s
    }

    /// Every component schema, the paywall document schemas included.
    public static var all: [String: JSONValue] {
        var schemas = shapes
        for (name, schema) in PaywallDocumentSchemas.components { schemas[name] = schema }
        return schemas
    }

    static var shapes: [String: JSONValue] {
        [
            "Problem": object(
                ["type": string, "title": string, "status": integer, "detail": string, "code": string],
                optional: ["errors": array(ref("ValidationIssue"))],
                description: "RFC 9457 problem details; `code` is stable, `errors` lists validation failures with JSON paths."),
            "ValidationIssue": object(["path": string, "message": string, "code": string],
                                      description: "One error or warning, e.g. path `$.root.children[3].productSlot`."),
            "ValidationResult": object(["ok": boolean, "warnings": array(ref("ValidationIssue"))],
                                       optional: ["errors": array(ref("ValidationIssue"))],
                                       description: "`errors` is present only when `ok` is false. Warnings never block publishing."),
            "Health": object(["status": string]),
            "CreatedApp": object(["appId": string, "name": string, "secretKey": string, "publicKey": string],
                                 description: "The keys are shown this once; only their hashes are stored."),
            "CreateAppRequest": request(["name": ["type": "string", "minLength": 1, "maxLength": 200]]),
            "APIKey": object(apiKeyFields, description: "A key as listed: its prefix, never the key."),
            "CreatedAPIKey": object(apiKeyFields.merging(["key": string]) { a, _ in a },
                                    description: "A new key; `key` is shown this once."),
            "APIKeyList": object(["keys": array(ref("APIKey"))]),
            "CreateKeyRequest": request(["kind": ["enum": ["secret", "public"]]]),
            "TemplateSummary": object(["name": string, "title": string, "locales": array(string)]),
            "TemplateList": object(["templates": array(ref("TemplateSummary"))]),
            "Template": object(["name": string, "document": ref("PaywallDocument")]),
            "CreatePaywallRequest": [
                "type": "object",
                "description": "Blank (`{}` or only `name`), from a template, or from a document (stored as the draft; it may be invalid). Not both `template` and `document`.",
                "properties": ["name": string, "template": ["enum": .array(PaywallTemplates.names.map(JSONValue.string))],
                               "document": anyObject],
                "not": ["required": ["template", "document"]],
            ],
            "PaywallSummary": object(paywallSummaryFields),
            "ArchivedPaywall": object(paywallSummaryFields, optional: [
                "warning": ["type": "string", "description": "Present when placements still point at the paywall: they keep serving its last version until reassigned."],
            ]),
            "PaywallPage": object(["items": array(ref("PaywallSummary")),
                                   "nextCursor": nullable("string", "Pass as `cursor` for the next page; null on the last page.")]),
            "Draft": object(["paywallId": string, "revision": integer,
                             "document": ["type": "object", "description": "The draft as saved: any JSON object, possibly invalid."],
                             "validation": ref("ValidationResult")]),
            "DraftTexts": object(["paywallId": string, "revision": integer, "locales": array(string),
                                  "defaultLocale": nullable("string"), "texts": array(ref("DraftText"))],
                                 description: "The editor's locale column view of the draft."),
            "DraftText": object(["path": string,
                                 "values": ["type": "object", "additionalProperties": string, "description": "Locale → text."],
                                 "missingLocales": array(string)]),
            "SetTextsRequest": request(["texts": ["type": "object", "additionalProperties": string,
                                                 "description": "Text path (from GET …/draft/texts) → translation."]]),
            "Version": object(versionFields, description: "An immutable published version."),
            "VersionWithDocument": object(versionFields.merging(["document": ref("PaywallDocument")]) { a, _ in a }),
            "VersionList": object(["items": array(ref("Version"))]),
            "RollbackRequest": request(["version": ["type": "integer", "minimum": 1]]),
            "Placement": object(["key": string, "paywallId": string, "rules": array(ref("Rule")),
                                 "createdAt": millis, "updatedAt": millis]),
            "PlacementList": object(["items": array(ref("Placement"))]),
            "AssignPlacementRequest": request(["paywallId": string]),
            "Rule": object(["when": ref("Condition"), "paywallId": string],
                           optional: ["activeFrom": ["type": "integer", "minimum": 0, "description": "Milliseconds since 1970; the rule applies from then on."],
                                      "activeUntil": ["type": "integer", "minimum": 0, "description": "Milliseconds since 1970; the rule stops applying then."]],
                           description: "Rules are tried in order; the first whose condition matches and whose paywall has a published version wins."),
            "RulesRequest": request(["rules": array(ref("Rule"))]),
            "Condition": [
                "description": "`all`/`any` of conditions, `not` one, or a comparison of a context key. A key missing from the context never matches a comparison (not even `ne`); only `exists` and `not` see absence.",
                "oneOf": [
                    object(["all": nonEmptyArray(ref("Condition"))]),
                    object(["any": nonEmptyArray(ref("Condition"))]),
                    object(["not": ref("Condition")]),
                    ref("Comparison"),
                ],
            ],
            "Comparison": object(["key": ["type": "string", "minLength": 1],
                                  "op": ["enum": .array(Condition.Operator.allCases.map { .string($0.rawValue) })]],
                                 optional: ["value": ["anyOf": [ref("ContextValue"), nonEmptyArray(ref("ContextValue"))],
                                                      "description": "An array for `in`/`not_in`; absent for `exists`; a number or string for `gt`/`gte`/`lt`/`lte`."]]),
            "ContextValue": ["type": ["string", "number", "boolean"]],
            "Resolution": object(["placement": string, "paywallId": string, "version": integer,
                                  "matchedRule": nullable("integer", "Index of the rule that won; null when the placement's own paywall serves."),
                                  "paywallArchived": boolean]),
        ]
    }

    static let apiKeyFields: [String: JSONValue] = [
        "id": string, "kind": ["enum": ["secret", "public"]], "prefix": string, "createdAt": millis, "revokedAt": nullable("integer"),
    ]
    static let paywallSummaryFields: [String: JSONValue] = [
        "id": string, "name": string, "createdAt": millis, "updatedAt": millis, "archived": boolean,
        "archivedAt": nullable("integer"), "draftRevision": integer, "latestVersion": nullable("integer"),
        "placements": array(string),
    ]
    static let versionFields: [String: JSONValue] = [
        "paywallId": string, "version": integer, "schemaVersion": integer, "contentHash": string, "publishedAt": millis,
        "rolledBackFrom": nullable("integer", "The version this one republished, if it is a rollback."),
    ]
}
