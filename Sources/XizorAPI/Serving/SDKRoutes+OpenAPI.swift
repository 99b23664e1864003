import HTTP
import PaywallFormat
import XizorDomain

/// The OpenAPI description of each operation `SDKRoutes` registers, one table beside the routes so
/// their `register` reads as what each route does; `APIRoutes` puts both together when a route is
/// declared, so neither can be registered without the other.
extension SDKRoutes {
    static let getPlacementPaywall = OperationDoc(
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
        ])

    static let getFallbackBundle = OperationDoc(
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
}
