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
            .header(
                "X-Xizor-Subscriber-Id",
                "The subscriber id as a header (the path form's way: kept out of the URL, so out of a cache's key)."),
            .header(
                "X-Xizor-Nonce",
                "1 to 128 visible ASCII characters signed into the answer's `X-Xizor-Signature` (the answer is then the request's own)."
            ),
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
                    (
                        "X-Xizor-Signature",
                        "`kid=…;t=…;sig=…`: Ed25519 over the answer (docs/scaling.md, \"Signed answers\")."
                    ),
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

    /// The path form: the authenticated endpoint's parameters and answers, the key in the path.
    static let getEdgePlacementPaywall: OperationDoc = {
        let doc = OperationDoc(
            "getEdgePlacementPaywall", summary: "The paywall for a placement, by a URL shared caches may keep",
            description:
                "The same answer as `GET /v1/sdk/placements/{key}/paywall`, with the app's public key in the path instead of `Authorization` (docs/scaling.md, \"Edge delivery\"). An answer nothing of the subscriber decided is `Cache-Control: public, max-age=0, s-maxage=…, stale-while-revalidate=…, stale-if-error=…` (`cache.*` settings) with a `Vary` naming only the request headers that decided it; the others are `private, no-cache`. Send the subscriber as `X-Xizor-Subscriber-Id`, so it never splits the cache's key. A placement reaching a running experiment answers its allocation (`X-Xizor-Allocation: 1`): the client computes its bucket and asks again with `experiment` and `variant`. Every answer carries `X-Xizor-Signature` (Ed25519, keys at `GET /v1/sdk/signing-keys`).",
            tag: "sdk",
            parameters: [
                .path("publicKey", "The app's public key (pk_…)."),
                .query("experiment", "With `variant`: the experiment whose allocation the client bucketed itself in."),
                .query("variant", "With `experiment`: the variant the client's bucket falls in."),
            ] + getPlacementPaywall.parameters,
            responses: getPlacementPaywall.responses + [
                .problem(
                    404,
                    "No such placement, nothing published, or `variant_not_found`: the experiment has no such variant.")
            ])
        return doc
    }()

    static let getSigningKeys = OperationDoc(
        "getSigningKeys", summary: "The public keys SDK answers are signed with",
        description:
            "Ed25519 public keys (standard base64 of the 32 raw bytes) with their `kid` and state: `current` signs, `next` will after the next rotation (pin it ahead), `previous` did before the last. The message signed is documented in docs/scaling.md (\"Signed answers\"). `Cache-Control: public, max-age=300`; tagged `X-Xizor-App: _signing-keys`, so a rotation purges it from the configured caches.",
        tag: "sdk", responses: [.json(200, "The keys.", ["type": "object"])])

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
