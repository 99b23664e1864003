import HTTP
import PaywallFormat

/// Placements, their rules and the resolution dry run (secret key).
struct PlacementRoutes {
    let services: XizorServices
    let auth: Authenticator

    func register(in router: inout Router) {
        let placements = services.placements
        router.get("/v1/placements") { request in
            let appID = try auth.secretApp(request)
            return APIResponse.json(["items": .array(try placements.list(appID: appID).map(\.json))])
        }
        router.put("/v1/placements/:key") { request in
            let appID = try auth.secretApp(request)
            let body = try request.jsonBody()
            let paywallID = try body.optionalString("paywallId", path: "$")
            let experimentID = try body.optionalString("experimentId", path: "$")
            return APIResponse.json(try placements.assign(appID: appID, key: request.parameter("key"), paywallID: paywallID,
                                                          experimentID: experimentID).json)
        }
        router.get("/v1/placements/:key") { request in
            let appID = try auth.secretApp(request)
            return APIResponse.json(try placements.placement(appID: appID, key: request.parameter("key")).json)
        }
        router.delete("/v1/placements/:key") { request in
            let appID = try auth.secretApp(request)
            try placements.delete(appID: appID, key: request.parameter("key"))
            return HTTPResponse(status: .noContent)
        }
        router.put("/v1/placements/:key/rules") { request in
            let appID = try auth.secretApp(request)
            let body = try request.jsonBody()
            guard let rules = body["rules"] else {
                throw ServiceError.badField("$.rules", "missing_required_field", "Send {\"rules\": [{\"when\": …, \"paywallId\": …}]}.")
            }
            return APIResponse.json(try placements.setRules(appID: appID, key: request.parameter("key"), rules: rules).json)
        }
        router.get("/v1/placements/:key/resolve") { request in
            let appID = try auth.secretApp(request)
            let resolution = try services.serving.resolve(appID: appID, placement: request.parameter("key"), context: request.presentationContext,
                                                          subscriberID: request.query("subscriberId"))
            return APIResponse.json(resolution.json)
        }
    }
}
