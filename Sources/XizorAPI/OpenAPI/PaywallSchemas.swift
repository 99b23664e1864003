import PaywallFormat
import XizorDomain

/// The component schemas of templates, paywalls, drafts, versions and assets.
extension APISchemas {
    static var paywalls: [String: JSONValue] {
        [
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
        ]
    }
}
