import HTTP
import PaywallFormat
import XizorDomain

/// Placements, their rules and the resolution dry run (secret key).
struct PlacementRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        let placements = services.placements
        routes.secret(
            .GET, "/v1/placements", scope: .read,
            OperationDoc(
                "listPlacements", summary: "List placements with their rules", tag: "placements",
                responses: [.json(200, "Every placement of the app, by key.", APISchemas.ref("PlacementList"))])
        ) { request, caller in
            let appID = caller.appID
            return APIResponse.json(["items": .array(try placements.list(appID: appID).map(\.json))])
        }
        routes.secret(
            .PUT, "/v1/placements/:key", scope: .placements,
            OperationDoc(
                "assignPlacement", summary: "Point a placement at a paywall (creating it when new)",
                description: "Live on the next SDK request; no publish needed.", tag: "placements",
                parameters: [.path("key", "The placement key: \(PlacementService.keyRule).")],
                requestBody: APISchemas.ref("AssignPlacementRequest"),
                responses: [.json(200, "The placement.", APISchemas.ref("Placement"))])
        ) { request, caller in
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
        routes.secret(
            .GET, "/v1/placements/:key", scope: .read,
            OperationDoc(
                "getPlacement", summary: "Read a placement", tag: "placements",
                parameters: [.path("key", "The placement key: \(PlacementService.keyRule).")],
                responses: [.json(200, "The placement.", APISchemas.ref("Placement"))])
        ) { request, caller in
            let appID = caller.appID
            return APIResponse.json(try placements.placement(appID: appID, key: request.parameter("key")).json)
        }
        routes.secret(
            .DELETE, "/v1/placements/:key", scope: .placements,
            OperationDoc(
                "deletePlacement", summary: "Delete a placement and its rules", tag: "placements",
                parameters: [.path("key", "The placement key: \(PlacementService.keyRule).")],
                responses: [.empty(204, "Deleted.")])
        ) { request, caller in
            let appID = caller.appID
            try placements.delete(appID: appID, key: request.parameter("key"))
            return HTTPResponse(status: .noContent)
        }
        routes.secret(
            .PUT, "/v1/placements/:key/rules", scope: .placements,
            OperationDoc(
                "setPlacementRules", summary: "Replace the placement's ordered rules",
                description:
                    "Every rule is validated (unknown or archived paywalls, operators, value types); 422 lists each error with its path.",
                tag: "placements", parameters: [.path("key", "The placement key: \(PlacementService.keyRule).")],
                requestBody: APISchemas.ref("RulesRequest"),
                responses: [.json(200, "The placement with its new rules.", APISchemas.ref("Placement"))])
        ) { request, caller in
            let appID = caller.appID
            let body = try request.jsonBody()
            guard let rules = body["rules"] else {
                throw ServiceError.badField(
                    "$.rules", "missing_required_field", "Send {\"rules\": [{\"when\": …, \"paywallId\": …}]}.")
            }
            return APIResponse.json(
                try placements.setRules(appID: appID, key: request.parameter("key"), rules: rules).json)
        }
        routes.secret(
            .GET, "/v1/placements/:key/resolve", scope: .read,
            OperationDoc(
                "resolvePlacement", summary: "Dry run: which paywall version a request gets, and why",
                description:
                    "The request is stated in query parameters: `context.KEY=VALUE` (`true`/`false` are booleans, JSON numbers numbers, the rest strings), `device.NAME=VALUE` for the request attributes (platform, appVersion, sdkVersion, osVersion, locale, country) and `subscriberId` (its stored attributes, rollouts, experiments and frequency caps apply). The answer's `trace` gives every rule's outcome in order (`matched`, `not_matched` with the first condition that failed and the value it saw, `inactive`, `capped`, `target_unpublished`, `not_reached`, `budget_exhausted`) and `fallback` whether the placement's own target answered. What the database holds of the subscriber — a stored attribute's value in `saw`, a cap's `presentations` — is shown only to a key with the `analytics` scope (the one `GET /v1/subscribers/{id}/attributes` needs); to others the comparison answers `reason: hidden` and the capped rule `hidden: analytics` instead. 404 `no_published_paywall` when nothing the placement could serve is published.",
                tag: "placements",
                parameters: [
                    .path("key", "The placement key."), .query("subscriberId", "The subscriber to resolve for."),
                ],
                responses: [
                    .json(200, "The resolution with its trace.", APISchemas.ref("Resolution")),
                    .problem(
                        400,
                        "`invalid_country` or `invalid_request_attribute`: a device.NAME value is not one a request could carry."
                    ),
                    .problem(422, "`unknown_attribute`: a device.NAME parameter names no request attribute."),
                ])
        ) { request, caller in
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
