import HTTP
import PaywallFormat

/// `GET /v1/paywalls/{id}/preview?version=draft|n&locale=&colorScheme=` (secret key): the page
/// for the dashboard's preview frame, placeholders kept.
struct PreviewRoutes {
    let services: XizorServices
    let pages: PageRendering

    func register(in routes: inout APIRoutes) {
        routes.secret(.GET, "/v1/paywalls/:id/preview", OperationDoc(
            "previewPaywall", summary: "The HTML page of the draft or a version, placeholders kept", tag: "paywalls",
            parameters: [.path("id", "A paywall id."),
                         .query("version", "`draft` (default) or a version number.", schema: ["type": "string", "pattern": "^(draft|[1-9][0-9]*)$"]),
                         .query("locale", "The locale to show (else the document's default)."),
                         .query("colorScheme", "light (default) or dark.", schema: ["enum": ["light", "dark"]])],
            responses: [APIResponseSpec(status: 200, description: "The page.", schema: ["type": "string"],
                                        contentType: "text/html", headers: [("ETag", "Strong tag of the page.")]),
                        .problem(400, "`version` or `colorScheme` is malformed.")])) { request, caller in
            let appID = caller.appID
            let id = request.parameter("id")
            let document: JSONValue
            switch request.query("version") ?? "draft" {
            case "draft":
                document = try services.paywalls.draft(appID: appID, id: id).document
            case let raw:
                guard let n = Int(raw), n >= 1 else {
                    throw ServiceError(.badRequest, "invalid_version", "'version' is 'draft' or a version number, not '\(raw)'.")
                }
                document = try services.paywalls.version(appID: appID, id: id, version: n).document
            }
            var scheme = ColorScheme.light
            if let raw = request.query("colorScheme") {
                guard let parsed = ColorScheme(rawValue: raw) else {
                    throw ServiceError(.badRequest, "invalid_color_scheme", "colorScheme is 'light' or 'dark', not '\(raw)'.")
                }
                scheme = parsed
            }
            let page = try pages.preview(document, locale: request.query("locale"), colorScheme: scheme)
            return HTTPResponse(status: .ok, headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache"],
                                body: page, etag: Representation.strongETag(page))
        }
    }
}
