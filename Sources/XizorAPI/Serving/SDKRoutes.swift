import HTTP
import PaywallFormat
import XizorDomain

/// The SDK API's delivery (public key): the paywall for a placement and the offline fallback
/// bundle. Events and timers, the SDK's writes, sit with their aggregates.
struct SDKRoutes {
    let services: XizorServices
    let delivery: PaywallDelivery

    func register(in routes: inout APIRoutes) {
        // Memory-only once a representation is cached (a revalidation never touches the database
        // or zlib), so it runs inline on the connection's queue. A request whose placement's rules
        // read what the database holds of its subscriber (attributes, frequency caps) is handed to
        // the handler pool by the resolver (`HTTPOffload`), in its app's share of the threads.
        routes.publicKey(
            .GET, "/v1/sdk/placements/:key/paywall",
            OperationDoc(
                "getPlacementPaywall", summary: "The paywall for a placement",
                description:
                    "`Accept: application/json` answers the document; `Accept: text/html` the self-contained page. Context as `context.KEY=VALUE` query parameters (`true`/`false` booleans, JSON numbers numbers, the rest strings). Strong ETag, `If-None-Match` → 304, gzip where accepted.",
                tag: "sdk",
                parameters: [
                    .path("key", "The placement key."),
                    .query("locale", "Preferred locale (else Accept-Language, else the document's default)."),
                    .query("colorScheme", "light or dark.", schema: ["enum": ["light", "dark"]]),
                    .query(
                        "subscriberId",
                        "Stable subscriber id (experiment bucketing, rollouts, stored attributes, frequency caps)."),
                    .query(
                        "country",
                        "ISO 3166-1 alpha-2 country (device.country) unless a trusted proxy's header (`targeting.countryHeader`) gives it."
                    ),
                    .header(
                        "X-Xizor-Platform",
                        "ios, ipados, macos, tvos, watchos, visionos, android or web (device.platform; android gets Google Play product ids in forms older than schema version 3)."
                    ),
                    .header(
                        "X-Xizor-App-Version", "The app's version (device.appVersion), compared by semver_* rules."),
                    .header("X-Xizor-SDK-Version", "The client library's version (device.sdkVersion)."),
                    .header("X-Xizor-OS-Version", "The operating system's version (device.osVersion)."),
                    .header("X-Xizor-Device-Locale", "The device's locale (device.locale), e.g. de-AT."),
                    .header(
                        "X-Xizor-Schema-Version",
                        "The newest document schema version the client reads (absent = 1; malformed = 400).",
                        schema: ["type": "string", "pattern": "^[0-9]+$"]),
                ],
                responses: [
                    APIResponseSpec(
                        status: 200, description: "The paywall (JSON form; `text/html` when asked).",
                        schema: APISchemas.ref("SDKPaywall"), contentType: "application/json",
                        headers: [
                            ("ETag", "Strong tag of this representation."),
                            ("X-Xizor-Schema-Version", "The version served."),
                            ("X-Xizor-Paywall", "The paywall served (also in the JSON body; the page's only source)."),
                            ("X-Xizor-Version", "The published version served."),
                        ]
                    )
                    .or("text/html", ["type": "string", "description": "The self-contained page."]),
                    .empty(204, "The subscriber is in an experiment's holdout: show nothing."),
                    .empty(304, "Not modified."),
                    .problem(400, "A malformed query parameter or X-Xizor-Schema-Version."),
                    .problem(
                        503,
                        "`render_busy`: the page's context values are past the version's cached variants and the app's uncached renders are all running; retry after `Retry-After` seconds."
                    ),
                ]), execution: .inline
        ) { request, caller in
            let appID = caller.appID
            let asked = try DeliveryRequest(request, placement: request.parameter("key"))
            switch try delivery.deliver(appID: appID, asked, from: request) {
            case .holdout(let assignment):
                return HTTPResponse(
                    status: .noContent,
                    headers: [
                        "Cache-Control": "no-cache", "X-Xizor-Holdout": assignment.experimentID,
                        "X-Xizor-Experiment": assignment.experimentID,
                    ])
            case .paywall(let representation):
                return representation.response
            }
        }
        routes.publicKey(
            .GET, "/v1/sdk/fallback-bundle",
            OperationDoc(
                "getFallbackBundle", summary: "Every placement's current paywall, for offline use", tag: "sdk",
                parameters: [
                    .query("colorScheme", "light or dark.", schema: ["enum": ["light", "dark"]]),
                    .header(
                        "X-Xizor-Platform",
                        "android gets Google Play product ids in forms older than schema version 3; any other platform the App Store's."
                    ),
                    .header(
                        "X-Xizor-Schema-Version",
                        "The newest document schema version the client reads (absent = 1; malformed = 400).",
                        schema: ["type": "string", "pattern": "^[0-9]+$"]),
                ],
                responses: [
                    .json(
                        200, "The bundle.", APISchemas.ref("FallbackBundle"),
                        headers: [("ETag", "Strong tag of the bundle.")]),
                    .empty(304, "Not modified."),
                    .problem(400, "A malformed query parameter or X-Xizor-Schema-Version."),
                ])
        ) { request, caller in
            let appID = caller.appID
            let asked = try DeliveryRequest(request, placement: "")
            return services.serving.fallbackBundleRepresentation(
                appID: appID, clientVersion: asked.schemaVersion, colorScheme: asked.colorScheme,
                store: ProductStore(platform: request.header("X-Xizor-Platform"))
            ).response
        }
    }
}
