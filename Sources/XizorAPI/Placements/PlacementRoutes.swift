import HTTP
import PaywallFormat
import XizorDomain

/// Placements, their rules and the resolution dry run (secret key).
struct PlacementRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        let placements = services.placements
        routes.secret(.GET, "/v1/placements", scope: .read, Self.listPlacements) { request, caller in
            let appID = caller.appID
            return APIResponse.json(["items": .array(try placements.list(appID: appID).map(\.json))])
        }
        routes.secret(.PUT, "/v1/placements/:key", scope: .placements, Self.assignPlacement) { request, caller in
            let appID = caller.appID
            let body = try request.jsonBody()
            let paywallID = try body.optionalString("paywallId", path: "$")
            let experimentID = try body.optionalString("experimentId", path: "$")
            return APIResponse.json(
                try placements.assign(
                    appID: appID, key: request.parameter("key"), paywallID: paywallID,
                    experimentID: experimentID
                ).json)
        }
        routes.secret(.GET, "/v1/placements/:key", scope: .read, Self.getPlacement) { request, caller in
            let appID = caller.appID
            return APIResponse.json(try placements.placement(appID: appID, key: request.parameter("key")).json)
        }
        routes.secret(.DELETE, "/v1/placements/:key", scope: .placements, Self.deletePlacement) { request, caller in
            let appID = caller.appID
            try placements.delete(appID: appID, key: request.parameter("key"))
            return HTTPResponse(status: .noContent)
        }
        routes.secret(.PUT, "/v1/placements/:key/rules", scope: .placements, Self.setPlacementRules) {
            request, caller in
            let appID = caller.appID
            let body = try request.jsonBody()
            guard let rules = body["rules"] else {
                throw ServiceError.badField(
                    "$.rules", "missing_required_field", "Send {\"rules\": [{\"when\": …, \"paywallId\": …}]}.")
            }
            return APIResponse.json(
                try placements.setRules(appID: appID, key: request.parameter("key"), rules: rules).json)
        }
        routes.secret(.GET, "/v1/placements/:key/resolve", scope: .read, Self.resolvePlacement) { request, caller in
            let appID = caller.appID
            var facts = RequestFacts(
                context: request.presentationContext, subscriberID: request.query("subscriberId"),
                device: try RequestAttributes(dryRunQuery: request.queryParameters.map { ($0.name, $0.value) }))
            let resolution = try services.serving.resolve(
                appID: appID, placement: request.parameter("key"), facts: &facts, trace: true)
            return APIResponse.json(resolution.visible(to: caller.scopes).json)
        }
    }
}
