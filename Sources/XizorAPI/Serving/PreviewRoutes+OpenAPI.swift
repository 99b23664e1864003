import HTTP
import PaywallFormat
import XizorDomain

/// The OpenAPI description of each operation `PreviewRoutes` registers, one table beside the routes so
/// their `register` reads as what each route does; `APIRoutes` puts both together when a route is
/// declared, so neither can be registered without the other.
extension PreviewRoutes {
    static let previewPaywall = OperationDoc(
        "previewPaywall", summary: "The HTML page of the draft or a version, with sample products",
        description:
            "Context as `context.KEY=VALUE` query parameters, as the SDK endpoint takes them. See docs/api.md, \"Previews\".",
        tag: "paywalls",
        parameters: Self.parameters, responses: Self.responses)

    static let previewPaywallWith = OperationDoc(
        "previewPaywallWith", summary: "The preview, its options in a JSON body",
        description:
            "The same as GET, with `version`, `locale`, `colorScheme`, `samples`, `products` and `context` (an object) in the body.",
        tag: "paywalls",
        parameters: [.path("id", "A paywall id.")],
        requestBody: APISchemas.ref("PreviewOptions"), responses: Self.responses)

    static let createPreviewLink = OperationDoc(
        "createPreviewLink", summary: "A short-lived URL of the preview, for a frame",
        description:
            "The same options as POST …/preview. The URL works without a key for \(PreviewLinks.lifetimeMs / 60_000) minutes and shows only this preview (a frame cannot send Authorization, and keys never go in URLs); it stops working earlier when the key that made it is revoked or the app or paywall is archived.",
        tag: "paywalls", parameters: [.path("id", "A paywall id.")],
        requestBody: APISchemas.ref("PreviewOptions"),
        responses: [
            .json(201, "The link.", APISchemas.ref("PreviewLink")),
            .problem(422, "An option is invalid (with its JSON path)."),
        ])

    static let openPreviewLink = OperationDoc(
        "openPreviewLink", summary: "The preview a preview link shows (no key: the link is its proof)",
        description:
            "404 once expired, when the token was not made by this server, or once the key that made it is revoked or its app or paywall archived. Framed only by pages of this server's own origin (the console): `Content-Security-Policy` is the page's own policy plus `frame-ancestors 'self'`, with `X-Frame-Options: SAMEORIGIN` and `X-Content-Type-Options: nosniff`. The access log writes the path without the token.",
        tag: "paywalls", parameters: [.path("token", "The token of a link from POST …/preview-link.")],
        responses: Self.linkResponses + [
            .problem(404, "`preview_link_not_found`: unknown, expired, or its key, app or paywall gone.")
        ])

    static let previewTemplate = OperationDoc(
        "previewTemplate", summary: "A built-in template's page, for the console's gallery (no key)",
        description:
            "The template rendered as a preview with sample products. The same for every app (its media are the server's bundled template assets), so no key is needed; rendered once per appearance and cached (`Cache-Control: public, max-age=3600`). Framed only by this server's own pages, as preview links are.",
        tag: "templates",
        parameters: [
            .path(
                "name", "A template name.",
                schema: ["enum": .array(PaywallTemplates.names.map(JSONValue.string))]),
            .query("colorScheme", "light (default) or dark.", schema: ["enum": ["light", "dark"]]),
        ],
        responses: Self.linkResponses.filter { $0.status == 200 } + [
            .problem(400, "`colorScheme` is neither light nor dark."),
            .problem(404, "`template_not_found`."),
        ])
}
