import HTTP
import PaywallFormat
import Storage

/// The SDK API (public key): the paywall for a placement, the offline fallback bundle, funnel
/// events and duration-timer starts.
struct SDKRoutes {
    let services: XizorServices
    let delivery: PaywallDelivery
    let auth: Authenticator

    func register(in router: inout Router) {
        // Memory-only once a representation is cached (a revalidation never touches SQLite or
        // zlib), so it runs inline on the connection's queue.
        router.get("/v1/sdk/placements/:key/paywall", execution: .inline) { request in
            let appID = try auth.publicApp(request)
            let asked = try DeliveryRequest(request, placement: request.parameter("key"))
            switch try delivery.deliver(appID: appID, asked) {
            case .holdout(let assignment):
                return HTTPResponse(status: .noContent, headers: [
                    "Cache-Control": "no-cache", "X-Xizor-Holdout": assignment.experimentID,
                    "X-Xizor-Experiment": assignment.experimentID,
                ])
            case .paywall(let representation):
                return HTTPResponse(status: .ok, headers: representation.headers, body: representation.body,
                                    etag: representation.etag, gzip: representation.gzip)
            }
        }
        router.get("/v1/sdk/fallback-bundle") { request in
            let appID = try auth.publicApp(request)
            let asked = try DeliveryRequest(request, placement: "")
            let bundle = services.serving.fallbackBundle(appID: appID, clientVersion: asked.schemaVersion, colorScheme: asked.colorScheme)
            let body = bundle.canonicalBytes
            return HTTPResponse(status: .ok,
                                headers: ["Content-Type": "application/json", "Cache-Control": "no-cache",
                                          "Vary": "X-Xizor-Schema-Version, Sec-CH-Prefers-Color-Scheme"],
                                body: body, etag: "\"" + String(SHA256.hexDigest(body).prefix(32)) + "\"")
        }
        router.post("/v1/sdk/events") { request in
            let appID = try auth.publicApp(request)
            let outcome = try services.events.ingest(appID: appID, batch: try request.jsonBody())
            return APIResponse.json(outcome.json, status: .accepted)
        }
        router.post("/v1/sdk/timers") { request in
            let appID = try auth.publicApp(request)
            let (startedAt, created) = try services.timers.start(appID: appID, body: try request.jsonBody())
            return APIResponse.json(["startedAt": .number(Int(startedAt)), "created": .bool(created)], status: created ? .created : .ok)
        }
    }
}
