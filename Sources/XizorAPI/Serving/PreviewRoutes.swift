import HTTP
import PaywallFormat
import XizorDomain

/// `GET|POST /v1/paywalls/{id}/preview` (secret key): the page for the dashboard's preview frame,
/// with sample products (labelled) where the app would put StoreKit's, and the caller's own
/// product values and context; placeholders without a value are kept.
struct PreviewRoutes {
    let previews: PreviewService

    static let parameters: [APIParameter] = [
        .path("id", "A paywall id."),
        .query(
            "version", "`draft` (default) or a version number.",
            schema: ["type": "string", "pattern": "^(draft|[1-9][0-9]*)$"]),
        .query("locale", "The locale to show (else the document's default)."),
        .query("colorScheme", "light (default) or dark.", schema: ["enum": ["light", "dark"]]),
        .query(
            "samples", "`false` keeps `{{product.*}}` placeholders instead of sample products.",
            schema: ["type": "boolean"]),
        .query(
            "products",
            "A JSON object, slot → product fields (`price`, `period`, `trialDays`, …, `introEligible`), over the samples.",
            schema: ["type": "string"]),
    ]

    static let responses: [APIResponseSpec] = [
        APIResponseSpec(
            status: 200, description: "The page.", schema: ["type": "string"], contentType: "text/html",
            headers: [
                ("ETag", "Strong tag of the page."),
                ("X-Xizor-Sample-Products", "Slots shown with sample values, comma-separated (absent when none)."),
            ]),
        .problem(400, "`version`, `colorScheme`, `samples` or `products` is malformed."),
        .problem(
            422, "`products` names a slot the paywall lacks or a field products do not have (with its JSON path)."),
    ]

    func register(in routes: inout APIRoutes) {
        routes.secret(.GET, "/v1/paywalls/:id/preview", scope: .read, Self.previewPaywall) { request, caller in
            try respond(
                caller.appID, request.parameter("id"),
                PreviewRequest(query: { request.query($0) }, context: request.presentationContext))
        }
        routes.secret(.POST, "/v1/paywalls/:id/preview", scope: .read, Self.previewPaywallWith) { request, caller in
            try respond(caller.appID, request.parameter("id"), PreviewRequest(json: request.jsonBody(allowEmpty: true)))
        }
        let links = previews.services.previewLinks
        routes.secret(.POST, "/v1/paywalls/:id/preview-link", scope: .read, Self.createPreviewLink) { request, caller in
            let link = try links.create(
                appID: caller.appID, paywallID: request.parameter("id"), keyID: caller.keyID,
                options: try request.jsonBody(allowEmpty: true), previews: previews)
            return APIResponse.json(
                ["url": .string(link.path), "expiresAt": .number(Int(link.expiresAt))], status: .created)
        }
        // The gallery's thumbnails: a template is the same for everyone, so its page needs no key,
        // and it is rendered once per appearance and served by its tag from then on.
        let gallery = TemplateGallery(previews: previews)
        routes.open(.GET, "/v1/templates/:name/preview", Self.previewTemplate) { request in
            let scheme = try request.query("colorScheme").map(PreviewRequest.colorScheme) ?? .light
            return framed(try gallery.page(request.parameter("name"), scheme), cache: "public, max-age=3600")
        }
        routes.open(
            .GET, "/v1/previews/:token",
            Self.openPreviewLink,
            redacting: ["token"]
        ) { request in
            let link = try links.open(request.parameter("token"))
            let page = try previews.render(appID: link.appID, id: link.paywallID, link.options)
            return framed(page, cache: "no-store")
        }
    }

    /// A page for the console's frames: one policy, the page's own (also in its meta element, which
    /// cannot hold frame-ancestors) with the framing rule merged in. The console is served by this
    /// server and loads these as relative URLs, so its origin is always 'self'.
    private func framed(_ page: PreviewPage, cache: String) -> HTTPResponse {
        var response = respond(page)
        response.headers["Cache-Control"] = cache
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Content-Security-Policy"] = page.contentSecurityPolicy + "; frame-ancestors 'self'"
        response.headers["X-Frame-Options"] = "SAMEORIGIN"
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response
    }

    /// The link's answer also names its framing and type headers.
    static let linkResponses: [APIResponseSpec] = responses.map { spec in
        guard spec.status == 200 else { return spec }
        return APIResponseSpec(
            status: 200, description: "The page.", schema: ["type": "string"], contentType: "text/html",
            headers: [
                ("ETag", "Strong tag of the page."),
                ("X-Xizor-Sample-Products", "Slots shown with sample values, comma-separated (absent when none)."),
                ("Content-Security-Policy", "The page's policy plus `frame-ancestors 'self'`."),
                ("X-Frame-Options", "`SAMEORIGIN`."), ("X-Content-Type-Options", "`nosniff`."),
            ])
    }

    private func respond(_ appID: String, _ id: String, _ options: PreviewRequest) throws -> HTTPResponse {
        respond(try previews.render(appID: appID, id: id, options))
    }

    private func respond(_ page: PreviewPage) -> HTTPResponse {
        var headers: HTTPHeaders = ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache"]
        let samples = page.sampleSlots
        if !samples.isEmpty { headers["X-Xizor-Sample-Products"] = samples.joined(separator: ", ") }
        return HTTPResponse(status: .ok, headers: headers, body: page.html, etag: page.etag)
    }
}
