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
                ],
                description: "An app as the admin lists it (never its keys)."),
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
            "TemplateSummary": object(["name": string, "title": string, "locales": array(string)]),
            "TemplateList": object(["templates": array(ref("TemplateSummary"))]),
            "Template": object(["name": string, "document": ref("PaywallDocument")]),
            "CreatePaywallRequest": [
                "type": "object",
                "description":
                    "Blank (`{}` or only `name`), from a template, or from a document (stored as the draft; it may be invalid). Not both `template` and `document`.",
                "properties": [
                    "name": string, "template": ["enum": .array(PaywallTemplates.names.map(JSONValue.string))],
                    "document": anyObject,
                ],
                "not": ["required": ["template", "document"]],
            ],
            "PaywallSummary": object(paywallSummaryFields),
            "ArchivedPaywall": object(
                paywallSummaryFields,
                optional: [
                    "warning": [
                        "type": "string",
                        "description":
                            "Present when placements or rules still target the paywall (each is named): they keep serving its last version until they target another.",
                    ]
                ]),
            "Asset": object(
                [
                    "id": ["type": "string", "description": "The SHA-256 of the bytes (hex)."],
                    "url": [
                        "type": "string",
                        "description":
                            "Put this in documents: `server.publicURL` (or https://xizor.localhost) + `path`.",
                    ],
                    "path": string, "kind": ["enum": ["image", "video", "lottie"]], "contentType": string,
                    "size": integer,
                    "name": nullable("string"), "createdAt": integer,
                    "createdBy": nullable("string", "The key that uploaded it."),
                ],
                description: "An uploaded media file."),
            "AssetPage": object([
                "items": array(ref("Asset")),
                "nextCursor": nullable("string", "Pass as `cursor` for the next page; null on the last page."),
            ]),
            "PaywallPage": object([
                "items": array(ref("PaywallSummary")),
                "nextCursor": nullable("string", "Pass as `cursor` for the next page; null on the last page."),
            ]),
            "Draft": object(
                [
                    "paywallId": string, "revision": integer,
                    "document": [
                        "type": "object", "description": "The draft as saved: any JSON object, possibly invalid.",
                    ],
                    "validation": ref("ValidationResult"),
                ],
                optional: ["editWarnings": array(ref("ValidationIssue"))]),
            "DraftTexts": object(
                [
                    "paywallId": string, "revision": integer, "locales": array(string),
                    "defaultLocale": nullable("string"), "texts": array(ref("DraftText")),
                    "coverage": array(ref("LocaleCoverage")),
                ],
                description: "The editor's locale column view of the draft."),
            "DraftText": object([
                "path": string,
                "values": ["type": "object", "additionalProperties": string, "description": "Locale → text."],
                "missingLocales": array(string),
                "staleLocales": [
                    "type": "array", "items": string,
                    "description": "Locales whose translation was made from an older source text.",
                ],
            ]),
            "LocaleCoverage": object(
                ["locale": string, "texts": integer, "missing": array(string), "stale": array(string)],
                description:
                    "A locale other than the default: the text paths it lacks and those translated from an older source."
            ),
            "SetTextsRequest": request([
                "texts": [
                    "type": "object", "additionalProperties": string,
                    "description": "Text path (from GET …/draft/texts) → translation.",
                ]
            ]),
            "Version": object(
                versionFields,
                optional: [
                    "unchanged": [
                        "type": "boolean", "const": true,
                        "description":
                            "Present on a publish or rollback that created nothing: the document was the latest version's already.",
                    ],
                    "warnings": [
                        "type": "array", "items": ref("ValidationIssue"),
                        "description":
                            "On a publish: locales that lack texts (`locale_incomplete`) or have stale translations (`locale_stale`).",
                    ],
                ],
                description: "An immutable published version."),
            "VersionWithDocument": object(versionFields.merging(["document": ref("PaywallDocument")]) { a, _ in a }),
            "VersionList": object(["items": array(ref("Version"))]),
            "RollbackRequest": request(["version": ["type": "integer", "minimum": 1]], optional: publishOptions),
            "PublishRequest": request([:], optional: publishOptions),
            "PreviewOptions": request(
                [:], optional: previewOptions,
                description: "What the preview shows; every member optional (an empty body is the default preview)."),
            "RenamePaywallRequest": request(["name": ["type": "string", "minLength": 1, "maxLength": 200]]),
            "JSONPatchOperation": [
                "type": "object", "description": "One RFC 6902 operation.",
                "properties": [
                    "op": ["enum": ["add", "remove", "replace", "move", "copy", "test"]],
                    "path": ["type": "string", "description": "An RFC 6901 JSON Pointer."],
                    "from": ["type": "string"], "value": [:],
                ],
                "required": ["op", "path"],
            ],
            "VersionDiff": object([
                "paywallId": string,
                "from": nullable("integer", "The version compared from (null: nothing published yet, so `{}`)."),
                "to": ["oneOf": [["type": "integer"], ["const": "draft"]]],
                "operations": array(ref("JSONPatchOperation")),
            ]),
            "ExperimentAssignment": object(
                [
                    "id": string, "variant": nullable("string", "Null in the holdout."), "holdout": boolean,
                    "assignment": ["enum": ["bucket", "no_subscriber"]],
                ],
                description: "Where a subscriber landed in a running experiment."),
            "Experiment": object([
                "id": string, "name": string, "status": ["enum": ["draft", "running", "stopped"]],
                "variants": array(object(["name": string, "paywallId": string, "weight": integer])),
                "holdoutWeight": integer, "createdAt": millis, "startedAt": nullable("integer"),
                "stoppedAt": nullable("integer"), "winner": nullable("string", "The promoted variant's name."),
                "placements": array(string),
            ]),
            "ExperimentList": object(["items": array(ref("Experiment"))]),
            "CreateExperimentRequest": request(
                [
                    "variants": [
                        "type": "array", "minItems": 2, "maxItems": 5,
                        "items": [
                            "type": "object", "required": ["paywallId", "weight"],
                            "properties": [
                                "paywallId": string, "name": string,
                                "weight": ["type": "integer", "minimum": 0, "maximum": 1_000_000],
                            ],
                        ],
                    ]
                ],
                optional: [
                    "name": ["type": "string", "minLength": 1, "maxLength": 200],
                    "holdoutWeight": ["type": "integer", "minimum": 0],
                ],
                description:
                    "2 to 5 variants, the first is the control; weights are relative integers (at least one above 0). Variant names default to control, variant_1, …"
            ),
            "ExperimentWeightsRequest": request(
                ["weights": array(["type": "integer", "minimum": 0])],
                optional: ["holdoutWeight": ["type": "integer", "minimum": 0]],
                description: "One weight per variant, in order."),
            "PromoteRequest": request(["variant": string]),
            "ExperimentResults": [
                "type": "object",
                "required": [
                    "experimentId", "status", "unit", "confidenceLevel", "variants", "bayesian", "sampleSize",
                ],
                "properties": [
                    "experimentId": string, "status": string, "unit": string, "confidenceLevel": ["type": "number"],
                    "environment": [
                        "enum": ["production", "sandbox", "all"], "description": "Which events were counted.",
                    ],
                    "bayesian": ["type": "object", "description": "The prior and method of the probabilities."],
                    "sampleSize": [
                        "type": "object",
                        "description":
                            "What each variant's sampleSize is computed for: minimumDetectableEffect, alpha, power.",
                    ],
                    "variants": array([
                        "type": "object",
                        "required": [
                            "name", "paywallId", "control", "impressions", "conversions", "probabilityToBeatControl",
                            "probabilityToBeBest", "revenue", "sampleSize",
                        ],
                        "properties": [
                            "name": string, "paywallId": string, "control": boolean,
                            "impressions": integer, "conversions": integer, "uniqueSubscribers": integer,
                            "probabilityToBeatControl": [
                                "type": ["number", "null"], "minimum": 0, "maximum": 1,
                                "description":
                                    "P(rate > the control's) under Beta(1 + conversions, 1 + non-converted) posteriors; null for the control, and while this variant or the control has no subscribers.",
                            ],
                            "probabilityToBeBest": [
                                "type": ["number", "null"], "minimum": 0, "maximum": 1,
                                "description":
                                    "P(rate is the highest of the variants that have subscribers); null for a variant without any.",
                            ],
                            "revenue": array(
                                object([
                                    "currency": string, "amount": ["type": "number"], "purchases": integer,
                                    "perSubscriber": [
                                        "type": ["number", "null"], "description": "amount ÷ uniqueSubscribers.",
                                    ],
                                ])),
                            "sampleSize": [
                                "anyOf": [object(["perVariant": integer, "remaining": integer]), ["type": "null"]],
                                "description":
                                    "Subscribers per variant needed to detect minimumDetectableEffect, and how many this one still lacks; null without a control rate.",
                            ],
                        ],
                    ]),
                    "holdout": [
                        "type": ["object", "null"], "required": ["uniqueSubscribers", "conversions"],
                        "properties": ["uniqueSubscribers": integer, "conversions": integer],
                        "description":
                            "Null without a holdout weight; else its subscribers counted from events tagged `variant: holdout`.",
                    ],
                ],
                "description":
                    "Conversion per variant with 95% confidence intervals and the difference to the control.",
            ],
            "PaywallAnalytics": object(
                [
                    "paywallId": string,
                    "versions": array(
                        object(
                            funnelFields.merging([
                                "version": integer,
                                "revenue": array(
                                    object(
                                        ["currency": string, "amount": ["type": "number"], "purchases": integer],
                                        description:
                                            "purchase_completed events with a numeric `price` and a `currency` property, summed per currency."
                                    )),
                            ]) { a, _ in a },
                            optional: ["series": array(object(funnelFields.merging(["start": millis]) { a, _ in a }))])),
                ],
                optional: [
                    "interval": ["enum": ["hour", "day"]],
                    "environment": [
                        "enum": ["production", "sandbox", "all"], "description": "Which events were counted.",
                    ],
                    "eventsWithoutContext": [
                        "type": "integer",
                        "description":
                            "With `context.KEY` filters: events in the range and placement that lack one of the filtered keys, so no funnel above counts them.",
                    ],
                ]),
            "SDKPaywall": object(
                [
                    "placement": string, "paywallId": string, "version": integer, "schemaVersion": integer,
                    "locale": string, "document": ref("PaywallDocument"),
                ],
                optional: ["experiment": ref("ExperimentAssignment")],
                description: "The paywall for a placement, in the form the client's schema version reads."),
            "FallbackBundle": object(
                [
                    "placements": [
                        "type": "object",
                        "additionalProperties": object(
                            [
                                "paywallId": string, "version": integer, "schemaVersion": integer,
                                "document": ref("PaywallDocument"),
                            ]),
                    ]
                ],
                description: "Every placement's current paywall, for offline fallback in the app."),
            "EventBatch": request(["events": array(ref("Event"))]),
            "Event": request(
                [
                    "id": string, "name": string,
                    "timestamp": [
                        "type": ["integer", "string"],
                        "description": "Milliseconds since 1970 or an RFC 3339 date-time.",
                    ],
                    "placement": string, "paywallId": string, "version": integer,
                ],
                optional: [
                    "subscriberId": string, "context": ["type": "object", "additionalProperties": ref("ContextValue")],
                    "properties": ["type": "object"], "experimentId": string, "variant": string,
                    "environment": [
                        "enum": ["production", "sandbox"],
                        "description":
                            "`sandbox` for a TestFlight or StoreKit-testing purchase; a sandbox key's events are sandbox whatever they say.",
                    ],
                ]),
            "EventOutcome": object(
                [
                    "accepted": integer, "duplicates": integer,
                    "rejected": array(
                        object(["index": integer, "id": nullable("string"), "errors": array(ref("ValidationIssue"))])),
                ],
                description:
                    "Accepted events are durable; duplicates (same id) are ignored; rejected ones list their errors."),
            "TimerRequest": request(["subscriberId": string, "paywallId": string, "nodeId": string]),
            "TimerStart": object(
                ["startedAt": millis, "created": boolean],
                description: "The persisted start of the timer: the first write wins, later ones answer it."),
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
