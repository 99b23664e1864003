import HTTP
import PaywallFormat
import XizorDomain

/// Paywalls, drafts, publishing and versions (secret key).
struct PaywallRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        let paywalls = services.paywalls
        routes.secret(.POST, "/v1/paywalls", scope: .drafts, Self.createPaywall) { request, caller in
            let appID = caller.appID
            let body = try request.jsonBody(allowEmpty: true)
            guard body.objectValue != nil else {
                throw ServiceError.badField("$", "not_an_object", "The body is a JSON object.")
            }
            let name = try body.optionalString("name", path: "$")
            let source: PaywallService.Source
            if let template = try body.optionalString("template", path: "$") {
                if body["document"] != nil {
                    throw ServiceError.badField(
                        "$.document", "mutually_exclusive_fields", "Give 'template' or 'document', not both.")
                }
                source = .template(template, name: name)
            } else if let document = body["document"] {
                source = .document(document, name: name)
            } else {
                source = .blank(name: name)
            }
            let created = try paywalls.create(appID: appID, from: source)
            return APIResponse.json(created.json, status: .created, headers: ["Location": "/v1/paywalls/\(created.id)"])
        }
        routes.secret(.GET, "/v1/paywalls", scope: .read, Self.listPaywalls) { request, caller in
            let page = try paywalls.list(
                appID: caller.appID, cursor: request.query("cursor"), limit: try PageSize.from(request),
                archived: try PaywallRoutes.archivedFlag(request.query("archived")))
            return APIResponse.json([
                "items": .array(page.items.map(\.json)), "nextCursor": page.nextCursor.map { .string($0) } ?? .null,
            ])
        }
        routes.secret(.GET, "/v1/paywalls/:id", scope: .read, Self.getPaywall) { request, caller in
            let appID = caller.appID
            return APIResponse.json(try paywalls.summary(appID: appID, id: request.parameter("id")).json)
        }
        routes.secret(.DELETE, "/v1/paywalls/:id", scope: .publish, Self.archivePaywall) { request, caller in
            let appID = caller.appID
            return APIResponse.json(try paywalls.archive(appID: appID, id: request.parameter("id")).archivedJSON)
        }
        routes.secret(.POST, "/v1/paywalls/:id/unarchive", scope: .publish, Self.unarchivePaywall) { request, caller in
            APIResponse.json(try paywalls.unarchive(appID: caller.appID, id: request.parameter("id")).json)
        }
        routes.secret(.PATCH, "/v1/paywalls/:id", scope: .drafts, Self.renamePaywall) { request, caller in
            let appID = caller.appID
            let id = request.parameter("id")
            let body = try request.jsonBody()
            guard let name = try body.optionalString("name", path: "$") else {
                throw ServiceError.badField("$.name", "missing_required_field", "'name' is required.")
            }
            let expected =
                request.header("If-Match") == nil
                ? nil
                : try DraftPrecondition.revision(
                    from: request, current: { try paywalls.draftRevision(appID: appID, id: id) })
            return APIResponse.json(
                try paywalls.rename(appID: appID, id: id, name: name, expectedRevision: expected).json)
        }
        routes.secret(.GET, "/v1/paywalls/:id/draft", scope: .read, Self.getDraft) { request, caller in
            let appID = caller.appID
            let draft = try paywalls.draft(appID: appID, id: request.parameter("id"))
            return APIResponse.json(draft.json, headers: ["Cache-Control": "no-cache"], etag: draft.etag)
        }
        routes.secret(.PUT, "/v1/paywalls/:id/draft", scope: .drafts, Self.saveDraft) { request, caller in
            let appID = caller.appID
            let id = request.parameter("id")
            let revision = try DraftPrecondition.revision(
                from: request, current: { try paywalls.draftRevision(appID: appID, id: id) })
            let draft = try paywalls.saveDraft(
                appID: appID, id: id, document: try request.jsonBody(), expectedRevision: revision)
            return APIResponse.json(draft.json, etag: draft.etag)
        }
        routes.secret(.GET, "/v1/paywalls/:id/draft/texts", scope: .read, Self.getDraftTexts) { request, caller in
            let appID = caller.appID
            let texts = try paywalls.texts(appID: appID, id: request.parameter("id"))
            return APIResponse.json(texts.json, headers: ["Cache-Control": "no-cache"], etag: texts.etag)
        }
        routes.secret(.PUT, "/v1/paywalls/:id/draft/texts/:locale", scope: .drafts, Self.setDraftTexts) {
            request, caller in
            let appID = caller.appID
            let id = request.parameter("id")
            let revision = try DraftPrecondition.revision(
                from: request, current: { try paywalls.draftRevision(appID: appID, id: id) })
            let body = try request.jsonBody()
            guard let object = (body["texts"] ?? body).objectValue else {
                throw ServiceError.badField(
                    "$.texts", "type_mismatch", "Send {\"texts\": {\"<path>\": \"<translation>\"}}.")
            }
            var translations: [String: String] = [:]
            var issues: [ValidationIssue] = []
            for (path, value) in object {
                if let text = value.stringValue {
                    translations[path] = text
                } else {
                    issues.append(
                        ValidationIssue(
                            path: "$.texts[\"\(path)\"]", message: "A translation is a string.", code: "type_mismatch"))
                }
            }
            guard issues.isEmpty else { throw ServiceError.invalid(issues) }
            let draft = try paywalls.setTexts(
                appID: appID, id: id, locale: request.parameter("locale"),
                translations: translations, expectedRevision: revision)
            return APIResponse.json(draft.json, etag: draft.etag)
        }
    }

    /// `archived=true|false` (absent: false); anything else is a 400 rather than a guess.
    static func archivedFlag(_ raw: String?) throws -> Bool {
        switch raw {
        case nil, "false": return false
        case "true": return true
        case let other?:
            throw ServiceError(.badRequest, "invalid_archived", "'archived' is true or false, not '\(other)'.")
        }
    }
}

/// `If-Match` on draft writes: required (428 without), strong comparison (412 on a stale tag).
enum DraftPrecondition {
    static func revision(from request: HTTPRequest, current: () throws -> Int64) throws -> Int64 {
        guard let header = request.header("If-Match") else {
            throw ServiceError(
                .preconditionRequired, "if_match_required",
                "Send If-Match with the draft's ETag (from GET …/draft) so concurrent edits are never lost.")
        }
        let tags = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if tags.contains("*") { return try current() }
        for tag in tags {
            // The draft's tag, or the tag of its gzip representation (the server derives that one).
            let digits = tag.dropFirst(2).prefix { $0.isNumber }
            guard tag.hasPrefix("\"r"), let n = Int64(digits) else { continue }
            let identity = "\"r\(n)\""
            if tag == identity || tag == HTTPResponse.gzipETag(for: identity) { return n }
        }
        // Weak or foreign tags never match a strong comparison. An entity tag is quoted (RFC 9110
        // §8.8.3): `r3` alone is a common slip, so say so rather than only "does not match".
        if let bare = tags.first(where: { $0.hasPrefix("r") && $0.dropFirst().allSatisfy(\.isNumber) && $0.count > 1 })
        {
            throw ServiceError(
                .preconditionFailed, "draft_revision_mismatch",
                "If-Match '\(header)' is not an entity tag: tags are quoted, send If-Match: \"\(bare)\" (with the double quotes)."
            )
        }
        throw ServiceError(
            .preconditionFailed, "draft_revision_mismatch", "If-Match '\(header)' does not match the draft's ETag.")
    }
}
