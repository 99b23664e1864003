import HTTP
import PaywallFormat

/// Paywalls, drafts, publishing and versions (secret key).
struct PaywallRoutes {
    let services: XizorServices
    let auth: Authenticator

    static let defaultPageSize = 50
    static let maxPageSize = 200

    func register(in router: inout Router) {
        let paywalls = services.paywalls
        router.post("/v1/paywalls") { request in
            let appID = try auth.secretApp(request)
            let body = try request.jsonBody(allowEmpty: true)
            guard body.objectValue != nil else { throw ServiceError.badField("$", "not_an_object", "The body is a JSON object.") }
            let name = try body.optionalString("name", path: "$")
            let source: PaywallService.Source
            if let template = try body.optionalString("template", path: "$") {
                if body["document"] != nil {
                    throw ServiceError.badField("$.document", "mutually_exclusive_fields", "Give 'template' or 'document', not both.")
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
        router.get("/v1/paywalls") { request in
            let appID = try auth.secretApp(request)
            var limit = PaywallRoutes.defaultPageSize
            if let raw = request.query("limit") {
                guard let n = Int(raw), n >= 1, n <= PaywallRoutes.maxPageSize else {
                    throw ServiceError(.badRequest, "invalid_limit", "'limit' is an integer from 1 to \(PaywallRoutes.maxPageSize).")
                }
                limit = n
            }
            let page = try paywalls.list(appID: appID, cursor: request.query("cursor"), limit: limit)
            return APIResponse.json(["items": .array(page.items.map(\.json)), "nextCursor": page.nextCursor.map { .string($0) } ?? .null])
        }
        router.get("/v1/paywalls/:id") { request in
            let appID = try auth.secretApp(request)
            return APIResponse.json(try paywalls.summary(appID: appID, id: request.parameter("id")).json)
        }
        router.delete("/v1/paywalls/:id") { request in
            let appID = try auth.secretApp(request)
            let archived = try paywalls.archive(appID: appID, id: request.parameter("id"))
            var body = archived.json
            if !archived.placements.isEmpty, case .object(var object) = body {
                object["warning"] = .string("Placements \(archived.placements.joined(separator: ", ")) keep serving this paywall's last version until reassigned.")
                body = .object(object)
            }
            return APIResponse.json(body)
        }
        router.get("/v1/paywalls/:id/draft") { request in
            let appID = try auth.secretApp(request)
            let draft = try paywalls.draft(appID: appID, id: request.parameter("id"))
            return APIResponse.json(draft.json, headers: ["Cache-Control": "no-cache"], etag: draft.etag)
        }
        router.put("/v1/paywalls/:id/draft") { request in
            let appID = try auth.secretApp(request)
            let id = request.parameter("id")
            let revision = try DraftPrecondition.revision(from: request, current: { try paywalls.draft(appID: appID, id: id).revision })
            let draft = try paywalls.saveDraft(appID: appID, id: id, document: try request.jsonBody(), expectedRevision: revision)
            return APIResponse.json(draft.json, etag: draft.etag)
        }
        router.get("/v1/paywalls/:id/draft/texts") { request in
            let appID = try auth.secretApp(request)
            let texts = try paywalls.texts(appID: appID, id: request.parameter("id"))
            return APIResponse.json(texts.json, headers: ["Cache-Control": "no-cache"], etag: texts.etag)
        }
        router.put("/v1/paywalls/:id/draft/texts/:locale") { request in
            let appID = try auth.secretApp(request)
            let id = request.parameter("id")
            let revision = try DraftPrecondition.revision(from: request, current: { try paywalls.draft(appID: appID, id: id).revision })
            let body = try request.jsonBody()
            guard let object = (body["texts"] ?? body).objectValue else {
                throw ServiceError.badField("$.texts", "type_mismatch", "Send {\"texts\": {\"<path>\": \"<translation>\"}}.")
            }
            var translations: [String: String] = [:]
            var issues: [ValidationIssue] = []
            for (path, value) in object {
                if let text = value.stringValue { translations[path] = text }
                else { issues.append(ValidationIssue(path: "$.texts[\"\(path)\"]", message: "A translation is a string.", code: "type_mismatch")) }
            }
            guard issues.isEmpty else { throw ServiceError.invalid(issues) }
            let draft = try paywalls.setTexts(appID: appID, id: id, locale: request.parameter("locale"),
                                              translations: translations, expectedRevision: revision)
            return APIResponse.json(draft.json, etag: draft.etag)
        }
        router.post("/v1/paywalls/:id/publish") { request in
            let appID = try auth.secretApp(request)
            let key = request.header("Idempotency-Key")
            if let key, key.isEmpty || key.count > 255 {
                throw ServiceError(.badRequest, "invalid_idempotency_key", "Idempotency-Key is 1 to 255 characters.")
            }
            let (version, replayed) = try paywalls.publish(appID: appID, id: request.parameter("id"), idempotencyKey: key)
            var headers: HTTPHeaders = ["Location": "/v1/paywalls/\(version.paywallID)/versions/\(version.version)"]
            if replayed { headers["Idempotent-Replayed"] = "true" }
            return APIResponse.json(version.json(includeDocument: false), status: .created, headers: headers)
        }
        router.get("/v1/paywalls/:id/versions") { request in
            let appID = try auth.secretApp(request)
            let versions = try paywalls.versions(appID: appID, id: request.parameter("id"))
            return APIResponse.json(["items": .array(versions.map { $0.json(includeDocument: false) })])
        }
        router.get("/v1/paywalls/:id/versions/:n") { request in
            let appID = try auth.secretApp(request)
            guard let n = Int(request.parameter("n")), n >= 1 else {
                throw ServiceError(.notFound, "version_not_found", "Versions are numbered 1, 2, …")
            }
            let version = try paywalls.version(appID: appID, id: request.parameter("id"), version: n)
            return APIResponse.json(version.json(includeDocument: true), etag: "\"\(version.contentHash)\"")
        }
        router.get("/v1/paywalls/:id/analytics") { request in
            let appID = try auth.secretApp(request)
            var filter = AnalyticsService.Filter()
            filter.from = try PaywallRoutes.time(request.query("from"), name: "from")
            filter.to = try PaywallRoutes.time(request.query("to"), name: "to")
            filter.placement = request.query("placement")
            filter.context = request.presentationContext
            return APIResponse.json(try services.analytics.funnel(appID: appID, paywallID: request.parameter("id"), filter: filter))
        }
        router.post("/v1/paywalls/:id/rollback") { request in
            let appID = try auth.secretApp(request)
            let body = try request.jsonBody()
            guard let n = body["version"]?.intValue, n >= 1 else {
                throw ServiceError.badField("$.version", "type_mismatch", "'version' is the number of the version to publish again.")
            }
            let version = try paywalls.rollback(appID: appID, id: request.parameter("id"), to: n)
            return APIResponse.json(version.json(includeDocument: false), status: .created,
                                    headers: ["Location": "/v1/paywalls/\(version.paywallID)/versions/\(version.version)"])
        }
    }
}

extension PaywallRoutes {
    /// A time query parameter: integer milliseconds since 1970 or an RFC 3339 date-time.
    static func time(_ raw: String?, name: String) throws -> Int64? {
        guard let raw else { return nil }
        if let ms = Int64(raw), ms >= 0 { return ms }
        if let ms = EventService.parseTimestamp(raw) { return ms }
        throw ServiceError(.badRequest, "invalid_time", "'\(name)' is milliseconds since 1970 or an RFC 3339 date-time, not '\(raw)'.")
    }
}

/// `If-Match` on draft writes: required (428 without), strong comparison (412 on a stale tag).
enum DraftPrecondition {
    static func revision(from request: HTTPRequest, current: () throws -> Int64) throws -> Int64 {
        guard let header = request.header("If-Match") else {
            throw ServiceError(.preconditionRequired, "if_match_required",
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
        // Weak or foreign tags never match a strong comparison.
        throw ServiceError(.preconditionFailed, "draft_revision_mismatch", "If-Match '\(header)' does not match the draft's ETag.")
    }
}
