import HTTP
import PaywallFormat
import XizorDomain

/// The SDK API's delivery (public key): the paywall for a placement — by the authenticated endpoint
/// and by the cacheable path form — the offline fallback bundle, and the keys answers are signed
/// with. Events and timers, the SDK's writes, sit with their aggregates.
struct SDKRoutes {
    let services: XizorServices
    let delivery: PaywallDelivery

    func register(in routes: inout APIRoutes) {
        // Memory-only once a representation is cached (a revalidation never touches the database
        // or zlib), so it runs inline on the connection's loop. A request whose placement's rules
        // read what the database holds of its subscriber (attributes, frequency caps) is handed to
        // the handler pool by the resolver (`HTTPOffload`), in its app's share of the threads.
        routes.publicKey(
            .GET, "/v1/sdk/placements/:key/paywall",
            Self.getPlacementPaywall, execution: .inline
        ) { request, caller in
            try answer(request, caller, surface: .authenticated) {
                $0.header(.authorization).flatMap(RouteGuard.bearerToken).map(String.init) ?? ""
            }
        }
        // The same answer by a URL that names the app (docs/scaling.md, "Edge delivery"): a shared
        // cache keys on it, and keeps what nothing of the subscriber decided.
        routes.publicKey(
            .GET, "/v1/sdk/apps/:publicKey/placements/:key/paywall", Self.getEdgePlacementPaywall,
            execution: .inline, inPath: true
        ) { request, caller in
            do {
                return try answer(request, caller, surface: .edge) { $0.parameter("publicKey") }
            } catch let error as ServiceError {
                // A shared cache may keep a 404 by default (RFC 9111 §4.2.2): a placement created
                // later would stay missing behind it, and nothing would purge it.
                return APIResponse.problem(error, headers: ["Cache-Control": "no-store"]).response
            }
        }
        routes.publicKey(.GET, "/v1/sdk/fallback-bundle", Self.getFallbackBundle) { request, caller in
            let appID = caller.appID
            let asked = try DeliveryRequest(request, placement: "")
            return services.serving.fallbackBundleRepresentation(
                appID: appID, clientVersion: asked.schemaVersion, colorScheme: asked.colorScheme,
                store: ProductStore(platform: request.header("X-Xizor-Platform"))
            ).response
        }
        // Public keys, published for apps to pin: the same for every app, so any cache may keep them.
        let signing = services.signing
        routes.open(.GET, "/v1/sdk/signing-keys", Self.getSigningKeys, execution: .inline) { _ in
            let body = signing.published.canonicalBytes
            // Tagged as the VCL's bans read it, so a rotation purges the keys from shared caches.
            return APIResponse.json(
                signing.published,
                headers: ["Cache-Control": "public, max-age=300", "X-Xizor-App": CachePurger.signingKeysTag],
                etag: Representation.strongETag(body))
        }
    }

    private func answer(
        _ request: HTTPRequest, _ caller: AppCaller, surface: PaywallDelivery.Surface,
        credential: (HTTPRequest) -> String
    ) throws -> HTTPResponse {
        // The key admission verified, lent by the request: the signer of the answer, not retained.
        try request.withVerifiedKey { key in
            guard let key else { throw RouteGuard.unadmitted(request) }
            let asked = try DeliveryRequest(request, placement: request.hashedParameter("key"))
            switch try delivery.deliver(
                appID: caller.appID, asked, from: request, surface: surface, signer: key, credential: credential)
            {
            case .holdout(let response): return response
            case .paywall(let representation): return representation.response
            }
        }
    }
}
