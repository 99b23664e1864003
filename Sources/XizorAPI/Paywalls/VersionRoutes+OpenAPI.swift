import HTTP
import PaywallFormat
import XizorDomain

/// The OpenAPI description of each operation `VersionRoutes` registers, one table beside the routes so
/// their `register` reads as what each route does; `APIRoutes` puts both together when a route is
/// declared, so neither can be registered without the other.
extension VersionRoutes {
    static let publishPaywall = OperationDoc(
        "publishPaywall", summary: "Validate the draft strictly and publish it as a new version",
        description:
            "422 with every error and its path when the draft is invalid; 409 when the paywall is archived. A draft that is the latest version already answers 200 with that version and `unchanged: true` (nothing is created) unless `force` is true.",
        tag: "versions",
        parameters: [
            .path("id", "A paywall id."),
            .header(
                "Idempotency-Key",
                "Retrying with the same key answers the first result instead of a second version.",
                schema: ["type": "string", "minLength": 1, "maxLength": 255]),
        ],
        requestBody: APISchemas.ref("PublishRequest"), requestBodyRequired: false,
        responses: [
            .json(
                201,
                "The new version (or the first one for a repeated Idempotency-Key, with `Idempotent-Replayed: true`).",
                APISchemas.ref("Version"), headers: [("Location", "The version's URL.")]),
            .json(
                200, "The draft is the latest version already: that version, with `unchanged: true`.",
                APISchemas.ref("Version")),
            .problem(409, "The paywall is archived."),
            .problem(
                422,
                "The draft is invalid (`errors` lists every error with its path), or `idempotency_key_mismatch`: the Idempotency-Key was used with a different request (body)."
            ),
        ])

    static let listVersions = OperationDoc(
        "listVersions", summary: "List published versions", tag: "versions",
        parameters: [.path("id", "A paywall id.")],
        responses: [.json(200, "The versions, without documents.", APISchemas.ref("VersionList"))])

    static let getVersion = OperationDoc(
        "getVersion", summary: "Read a published version with its document", tag: "versions",
        parameters: [
            .path("id", "A paywall id."),
            .path("n", "The version number.", schema: ["type": "integer", "minimum": 1]),
        ],
        responses: [
            .json(
                200, "The version.", APISchemas.ref("VersionWithDocument"),
                headers: [("ETag", "The content hash.")])
        ])

    static let rollbackPaywall = OperationDoc(
        "rollbackPaywall", summary: "Publish an old version's document again as a new version",
        description:
            "`{version, note?, force?}`. When that document is the latest version's already, 200 with the latest and `unchanged: true`, unless `force`.",
        tag: "versions",
        parameters: [.path("id", "A paywall id.")], requestBody: APISchemas.ref("RollbackRequest"),
        responses: [
            .json(
                201, "The new version.", APISchemas.ref("Version"),
                headers: [("Location", "The version's URL.")]),
            .json(
                200, "That document is live already: the latest version, with `unchanged: true`.",
                APISchemas.ref("Version")),
        ])

    static let diffPaywall = OperationDoc(
        "diffPaywall",
        summary: "What changed between two versions, or between a version and the draft (RFC 6902)",
        description:
            "`operations` applied to `from`'s document give `to`'s exactly (a JSON Patch you could send to PATCH …/draft). `from` defaults to the latest version (`{}` before the first publish), `to` to the draft: the default answers \"what would publishing change\".",
        tag: "versions",
        parameters: [
            .path("id", "A paywall id."),
            .query(
                "from", "A version number (default: the latest version).",
                schema: ["type": "integer", "minimum": 1]),
            .query(
                "to", "A version number or `draft` (default).",
                schema: ["type": "string", "pattern": "^([1-9][0-9]*|draft)$"]),
        ],
        responses: [
            .json(200, "The operations.", APISchemas.ref("VersionDiff")),
            .problem(
                422,
                "`from` or `to` is not a version number (or `draft`); the error names `$.query.from` or `$.query.to`."
            ),
        ])

    static let patchDraft = OperationDoc(
        "patchDraft",
        summary:
            "Edit the draft precisely: a JSON Patch (RFC 6902) or a JSON Merge Patch (RFC 7396) under If-Match",
        description:
            "`application/json-patch+json`: an array of operations applied in order, all or none; a failed `test` answers 409 `patch_test_failed`, a path that does not resolve 422 `patch_unresolvable`, a malformed operation 400 `invalid_patch`, each with the operation's JSON path (`$[i].path`). `application/merge-patch+json`: members merge, `null` removes, arrays replace. Either is held to the limits of what it produces: a JSON Patch writes at most `http.maxBodyBytes` (a `copy` pays for what it copies; 413 `patch_too_large` at `$[i]`) and nests at most 128 levels (422 `patch_too_deep`); the result is at most `http.maxBodyBytes` (413 `draft_too_large`) and does not go over a document limit the draft kept (422 `draft_limit_exceeded`). Nothing is stored when refused.",
        tag: "drafts",
        parameters: [
            .path("id", "A paywall id."),
            .header("If-Match", "The draft's ETag from GET …/draft (or `*`).", required: true),
        ],
        requestBody: [
            "description": "A JSON Patch (array of operations) or a merge patch (object), by Content-Type."
        ],
        responses: [
            .json(
                200, "The saved draft with its validation.", APISchemas.ref("Draft"),
                headers: [("ETag", "The new revision's tag.")]),
            .problem(
                409,
                "A `test` operation failed (`patch_test_failed`), or the stored draft is over the JSON parser's limits (`stored_draft_too_large`: replace it with PUT)."
            ),
            .problem(412, "If-Match does not match the draft's ETag."),
            .problem(
                413,
                "The patch writes more than `http.maxBodyBytes` (`patch_too_large`, at `$[i]`), or the patched draft is larger (`draft_too_large`)."
            ),
            .problem(415, "Neither application/json-patch+json nor application/merge-patch+json."),
            .problem(
                422,
                "A path that does not resolve (`patch_unresolvable`), nesting past 128 levels (`patch_too_deep`), or a document limit passed (`draft_limit_exceeded`); `errors` names where."
            ),
            .problem(428, "If-Match is missing."),
        ])
}
