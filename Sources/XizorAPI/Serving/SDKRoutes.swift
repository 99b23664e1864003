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
            Self.getPlacementPaywall, execution: .inline
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
        routes.publicKey(.GET, "/v1/sdk/fallback-bundle", Self.getFallbackBundle) { request, caller in
            let appID = caller.appID
            let asked = try DeliveryRequest(request, placement: "")
            return services.serving.fallbackBundleRepresentation(
                appID: appID, clientVersion: asked.schemaVersion, colorScheme: asked.colorScheme,
                store: ProductStore(platform: request.header("X-Xizor-Platform"))
            ).response
        }
    }
}
