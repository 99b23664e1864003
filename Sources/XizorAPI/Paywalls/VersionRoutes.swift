import HTTP
import PaywallFormat
import XizorDomain

/// Publishing, versions, rollback, diffs and precise draft edits (secret key).
struct VersionRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        let paywalls = services.paywalls
        routes.secret(
            .POST, "/v1/paywalls/:id/publish", scope: .publish,
            OperationDoc(
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
        ) { request, caller in
            let key = request.header("Idempotency-Key")
            if let key, key.isEmpty || key.count > 255 {
                throw ServiceError(.badRequest, "invalid_idempotency_key", "Idempotency-Key is 1 to 255 characters.")
            }
            let options = try PublishOptions.parse(
                try Self.optionalObject(request), path: "$", publishedBy: caller.keyID)
            return Self.answer(
                try paywalls.publish(
                    appID: caller.appID, id: request.parameter("id"), idempotencyKey: key, options: options))
        }
        routes.secret(
            .GET, "/v1/paywalls/:id/versions", scope: .read,
            OperationDoc(
                "listVersions", summary: "List published versions", tag: "versions",
                parameters: [.path("id", "A paywall id.")],
                responses: [.json(200, "The versions, without documents.", APISchemas.ref("VersionList"))])
        ) { request, caller in
            let versions = try paywalls.versions(appID: caller.appID, id: request.parameter("id"))
            return APIResponse.json(["items": .array(versions.map { $0.json(includeDocument: false) })])
        }
        routes.secret(
            .GET, "/v1/paywalls/:id/versions/:n", scope: .read,
            OperationDoc(
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
        ) { request, caller in
            guard let n = Int(request.parameter("n")), n >= 1 else {
                throw ServiceError(.notFound, "version_not_found", "Versions are numbered 1, 2, …")
            }
            let version = try paywalls.version(appID: caller.appID, id: request.parameter("id"), version: n)
            return APIResponse.json(version.json(includeDocument: true), etag: "\"\(version.contentHash)\"")
        }
        routes.secret(
            .POST, "/v1/paywalls/:id/rollback", scope: .publish,
            OperationDoc(
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
        ) { request, caller in
            let body = try request.jsonBody()
            guard let n = body["version"]?.intValue, n >= 1 else {
                throw ServiceError.badField(
                    "$.version", "type_mismatch", "'version' is the number of the version to publish again.")
            }
            let options = try PublishOptions.parse(body, path: "$", publishedBy: caller.keyID)
            return Self.answer(
                try paywalls.rollback(appID: caller.appID, id: request.parameter("id"), to: n, options: options))
        }
        routes.secret(
            .GET, "/v1/paywalls/:id/diff", scope: .read,
            OperationDoc(
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
        ) { request, caller in
            let from = try request.query("from").map { raw -> PaywallService.DiffSide in
                guard let n = Int(raw), n >= 1 else {
                    throw ServiceError.badField("$.query.from", "type_mismatch", "'from' is a version number.")
                }
                return .version(n)
            }
            let to = try request.query("to").map { raw -> PaywallService.DiffSide in
                if raw == "draft" { return .draft }
                guard let n = Int(raw), n >= 1 else {
                    throw ServiceError.badField("$.query.to", "type_mismatch", "'to' is a version number or 'draft'.")
                }
                return .version(n)
            }
            let id = request.parameter("id")
            let diff = try paywalls.diff(appID: caller.appID, id: id, from: from, to: to)
            return APIResponse.json([
                "paywallId": .string(id), "from": diff.from?.json ?? .null, "to": diff.to.json,
                "operations": .array(diff.operations.map(\.json)),
            ])
        }
        routes.secret(
            .PATCH, "/v1/paywalls/:id/draft", scope: .drafts,
            OperationDoc(
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
        ) { request, caller in
            let appID = caller.appID
            let id = request.parameter("id")
            // Another app's paywall is 404 whatever the body, as on every draft route.
            let current = try paywalls.draft(appID: appID, id: id)
            let type = request.header("Content-Type")?.lowercased() ?? ""
            let isJSONPatch = type.hasPrefix("application/json-patch+json")
            guard isJSONPatch || type.hasPrefix("application/merge-patch+json") else {
                throw ServiceError(
                    .unsupportedMediaType, "unsupported_media_type",
                    "PATCH a draft with application/json-patch+json (RFC 6902) or application/merge-patch+json (RFC 7396)."
                )
            }
            let revision = try DraftPrecondition.revision(from: request, current: { current.revision })
            let body = try request.jsonBody()
            let draft =
                isJSONPatch
                ? try paywalls.applyJSONPatch(appID: appID, id: id, patch: body, expectedRevision: revision)
                : try paywalls.patchDraft(appID: appID, id: id, patch: body, expectedRevision: revision)
            return APIResponse.json(draft.json, etag: draft.etag)
        }
    }

    /// 201 with `Location` for a new version; 200 (`unchanged: true`) when nothing was created;
    /// a replayed Idempotency-Key answers as the first call did, with `Idempotent-Replayed`.
    static func answer(_ result: PublishResult) -> HTTPResponse {
        let version = result.version
        var json = result.json
        var headers: HTTPHeaders = ["Location": "/v1/paywalls/\(version.paywallID)/versions/\(version.version)"]
        switch result.outcome {
        case .created:
            return APIResponse.json(json, status: .created, headers: headers)
        case .replayed:
            headers["Idempotent-Replayed"] = "true"
            return APIResponse.json(json, status: .created, headers: headers)
        case .unchanged:
            json["unchanged"] = true
            return APIResponse.json(json, status: .ok, headers: headers)
        }
    }

    /// A body that may be empty (publish takes `{note?, force?}` or nothing).
    static func optionalObject(_ request: HTTPRequest) throws -> JSONValue {
        let body = try request.jsonBody(allowEmpty: true)
        guard body.objectValue != nil else {
            throw ServiceError.badField("$", "not_an_object", "The body is a JSON object.")
        }
        return body
    }
}
