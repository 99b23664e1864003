import HTTP
import PaywallFormat
import XizorDomain

/// Publishing, versions, rollback, diffs and precise draft edits (secret key).
struct VersionRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        let paywalls = services.paywalls
        routes.secret(.POST, "/v1/paywalls/:id/publish", scope: .publish, Self.publishPaywall) { request, caller in
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
        routes.secret(.GET, "/v1/paywalls/:id/versions", scope: .read, Self.listVersions) { request, caller in
            let versions = try paywalls.versions(appID: caller.appID, id: request.parameter("id"))
            return APIResponse.json(["items": .array(versions.map { $0.json(includeDocument: false) })])
        }
        routes.secret(.GET, "/v1/paywalls/:id/versions/:n", scope: .read, Self.getVersion) { request, caller in
            guard let n = Int(request.parameter("n")), n >= 1 else {
                throw ServiceError(.notFound, "version_not_found", "Versions are numbered 1, 2, …")
            }
            let version = try paywalls.version(appID: caller.appID, id: request.parameter("id"), version: n)
            return APIResponse.json(version.json(includeDocument: true), etag: "\"\(version.contentHash)\"")
        }
        routes.secret(.POST, "/v1/paywalls/:id/rollback", scope: .publish, Self.rollbackPaywall) { request, caller in
            let body = try request.jsonBody()
            guard let n = body["version"]?.intValue, n >= 1 else {
                throw ServiceError.badField(
                    "$.version", "type_mismatch", "'version' is the number of the version to publish again.")
            }
            let options = try PublishOptions.parse(body, path: "$", publishedBy: caller.keyID)
            return Self.answer(
                try paywalls.rollback(appID: caller.appID, id: request.parameter("id"), to: n, options: options))
        }
        routes.secret(.GET, "/v1/paywalls/:id/diff", scope: .read, Self.diffPaywall) { request, caller in
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
        routes.secret(.PATCH, "/v1/paywalls/:id/draft", scope: .drafts, Self.patchDraft) { request, caller in
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
