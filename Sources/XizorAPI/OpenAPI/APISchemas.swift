import PaywallFormat
import XizorDomain

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
    static func object(_ required: [String: JSONValue], optional: [String: JSONValue] = [:], description: String? = nil)
        -> JSONValue
    {
        var s = request(required, optional: optional, description: description)
        s["additionalProperties"] = false
        return s
    }

    /// A request body's object: the routes ignore members they do not know, so it stays open.
    static func request(
        _ required: [String: JSONValue], optional: [String: JSONValue] = [:], description: String? = nil
    ) -> JSONValue {
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
        for (name, schema) in targeting { schemas[name] = schema }
        for (name, schema) in integrations { schemas[name] = schema }
        for (name, schema) in paywalls { schemas[name] = schema }
        for (name, schema) in experimentsAndSDK { schemas[name] = schema }
        for (name, schema) in revenue { schemas[name] = schema }
        return schemas
    }

    static var shapes: [String: JSONValue] {
        [
            "Problem": object(
                ["type": string, "title": string, "status": integer, "detail": string, "code": string],
                optional: [
                    "errors": array(ref("ValidationIssue")),
                    "scope": ["type": "string", "description": "`missing_scope`: the scope the key lacks."],
                    "keyScopes": [
                        "type": "array", "items": string, "description": "`missing_scope`: the scopes the key has.",
                    ],
                    "reason": [
                        "type": "string",
                        "description":
                            "`notification_refused`: which check a store notification failed (docs/revenue.md).",
                    ],
                ],
                description:
                    "RFC 9457 problem details; `code` is stable, `errors` lists validation failures with JSON paths."),
            "ValidationIssue": object(
                ["path": string, "message": string, "code": string],
                description: "One error or warning, e.g. path `$.root.children[3].productSlot`."),
            "ValidationResult": object(
                ["ok": boolean, "warnings": array(ref("ValidationIssue"))],
                optional: ["errors": array(ref("ValidationIssue"))],
                description: "`errors` is present only when `ok` is false. Warnings never block publishing."),
            "Health": object(["status": string]),
            "Diagnostics": object([
                "version": string,
                "storage": [
                    "oneOf": [ref("SQLiteDiagnostics"), ref("PostgresDiagnostics")],
                    "description": "Read back from the database connection, not from the configuration.",
                ],
            ]),
            "SQLiteDiagnostics": object([
                "driver": ["type": "string", "enum": ["sqlite"]],
                "journalMode": string,
                "synchronous": [
                    "type": ["string", "null"], "enum": ["off", "normal", "full", "extra", .null],
                    "description":
                        "What the writer connection runs with; `full` makes every 2xx write survive power loss.",
                ],
                "foreignKeys": boolean, "busyTimeoutMs": integer, "readConnections": integer,
                "writerCacheBytes": [
                    "type": "integer", "description": "The writer's page cache (`storage.writerCacheBytes`).",
                ],
                "walAutocheckpointPages": [
                    "type": "integer",
                    "description": "WAL pages after which a commit checkpoints (`storage.walAutocheckpointPages`).",
                ],
            ]),
            "PostgresDiagnostics": object([
                "driver": ["type": "string", "enum": ["postgres"]],
                "serverVersion": string,
                "synchronousCommit": [
                    "type": "string", "description": "`on` (the default) makes every 2xx write durable.",
                ],
                "defaultIsolation": string, "poolSize": integer,
            ]),
            "App": object(
                [
                    "id": string, "name": string, "createdAt": millis, "archived": boolean,
                    "archivedAt": nullable("integer"),
                    "eventRetentionDays": nullable(
                        "integer", "Days its raw events are kept; null: the server's events.retentionDays."),
                ],
                description: "An app as the admin lists it (never its keys)."),
            "UpdateAppRequest": request(
                [
                    "eventRetentionDays": [
                        "type": ["integer", "null"], "minimum": 1, "maximum": 36_500,
                        "description":
                            "Days the app's raw events are kept (deleted hourly, in chunks; analytics keep their rollups); null: the server's events.retentionDays.",
                    ]
                ]),
            "AppList": object([
                "apps": array(ref("App")),
                "nextCursor": nullable("string", "Pass as `cursor` for the next page; null on the last."),
            ]),
            "CreatedApp": object(
                ["appId": string, "name": string, "secretKey": string, "publicKey": string],
                description: "The keys are shown this once; only their hashes are stored."),
            "CreateAppRequest": request(["name": ["type": "string", "minLength": 1, "maxLength": 200]]),
            "APIKey": object(
                apiKeyFields, optional: integrationKeyFields, description: "A key as listed: its prefix, never the key."
            ),
            "CreatedAPIKey": object(
                apiKeyFields.merging(["key": string]) { a, _ in a },
                optional: integrationKeyFields,
                description: "A new key; `key` is shown this once."),
            "APIKeyList": object([
                "keys": array(ref("APIKey")),
                "nextCursor": nullable("string", "Pass as `cursor` for the next page; null on the last."),
            ]),
            "RecoveryKeyRequest": request(
                [:],
                optional: [
                    "label": [
                        "type": "string", "minLength": 1, "maxLength": 100,
                        "description": "What the key is for; listed with it.",
                    ]
                ],
                description: "The body may be empty: the key is a full-access secret key."),
            "CreateKeyRequest": request(
                ["kind": ["enum": ["secret", "public"]]],
                optional: [
                    "label": [
                        "type": "string", "minLength": 1, "maxLength": 100,
                        "description": "What the key is for (\"iOS app\", \"backend\"); listed with it.",
                    ],
                    "scopes": [
                        "type": "array", "minItems": 1, "items": ref("Scope"),
                        "description":
                            "A secret key's scopes; left out, every scope (full access). At most the creating key's own.",
                    ],
                    "environment": [
                        "enum": ["production", "sandbox"],
                        "description": "A public key's environment: a sandbox key's events are sandbox data.",
                    ],
                ]),
        ]
    }

    static let apiKeyFields: [String: JSONValue] = [
        "id": string, "kind": ["enum": ["secret", "public"]], "prefix": string, "createdAt": millis,
        "revokedAt": nullable("integer"),
        "label": nullable("string", "What the key is for, as its creator named it."),
    ]
    static let paywallSummaryFields: [String: JSONValue] = [
        "id": string, "name": string, "createdAt": millis, "updatedAt": millis, "archived": boolean,
        "archivedAt": nullable("integer"), "draftRevision": integer, "latestVersion": nullable("integer"),
        "draftChangedSincePublish": nullable(
            "boolean", "Whether the draft differs from the latest version; null before the first publish."),
        "placements": [
            "type": "array", "items": string,
            "description": "Placements that serve it: their own target or one of their rules.",
        ],
        "targetedBy": array(ref("PlacementReference")),
    ]
    static let versionFields: [String: JSONValue] = [
        "paywallId": string, "version": integer, "schemaVersion": integer, "contentHash": string, "publishedAt": millis,
        "rolledBackFrom": nullable("integer", "The version this one republished, if it is a rollback."),
        "note": nullable("string", "Why it was published, as the publisher wrote it."),
        "publishedBy": nullable(
            "string", "The id of the key that published it (null for the command line and versions older than notes)."),
    ]
    /// One funnel's counts: a version's, or one bucket of its series.
    static let funnelFields: [String: JSONValue] = [
        "impressions": integer, "closes": integer, "purchaseStarted": integer, "purchaseCompleted": integer,
        "purchaseFailed": integer, "purchaseCancelled": integer, "restores": integer, "uniqueSubscribers": integer,
        "conversions": ["type": "integer", "description": "Subscribers with a purchase_completed."],
        "conversion": [
            "type": ["number", "null"],
            "description":
                "The conversion rate, one definition everywhere: conversions / uniqueSubscribers (subscribers who bought / subscribers who saw it); null when nobody saw it.",
        ],
        "purchasesPerImpression": [
            "type": ["number", "null"], "description": "purchaseCompleted / impressions; null without impressions.",
        ],
    ]
    /// `POST …/preview`'s body and `preview_paywall`'s arguments.
    static let previewOptions: [String: JSONValue] = [
        "version": ["type": ["string", "integer"], "description": "`draft` (default) or a version number."],
        "locale": [
            "type": "string", "maxLength": 35, "description": "The locale to show (else the document's default).",
        ],
        "colorScheme": ["enum": ["light", "dark"], "description": "light (default) or dark."],
        "samples": [
            "type": "boolean",
            "description": "false keeps {{product.*}} placeholders instead of sample products (default true).",
        ],
        "products": [
            "type": "object",
            "description":
                "Slot → product fields (price, period, pricePerWeek, pricePerMonth, introPrice, introPeriod, trialDays, title, description, currency as strings; introEligible a boolean), over the samples.",
            "additionalProperties": ["type": "object"],
        ],
        "context": [
            "type": "object", "description": "Presentation context ({{context.KEY}}), strings, numbers and booleans.",
            "additionalProperties": ["type": ["string", "number", "boolean"]],
        ],
    ]

    static let publishOptions: [String: JSONValue] = [
        "note": ["type": "string", "minLength": 1, "maxLength": 500, "description": "Why: kept with the version."],
        "force": [
            "type": "boolean",
            "description": "Create a version even when the document is the latest version's already.",
        ],
    ]
}
