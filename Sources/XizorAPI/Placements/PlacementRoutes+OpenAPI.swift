import HTTP
import PaywallFormat
import XizorDomain

/// The OpenAPI description of each operation `PlacementRoutes` registers, one table beside the routes so
/// their `register` reads as what each route does; `APIRoutes` puts both together when a route is
/// declared, so neither can be registered without the other.
extension PlacementRoutes {
    static let listPlacements = OperationDoc(
        "listPlacements", summary: "List placements with their rules", tag: "placements",
        responses: [.json(200, "Every placement of the app, by key.", APISchemas.ref("PlacementList"))])

    static let assignPlacement = OperationDoc(
        "assignPlacement", summary: "Point a placement at a paywall (creating it when new)",
        description: "Live on the next SDK request; no publish needed.", tag: "placements",
        parameters: [.path("key", "The placement key: \(PlacementService.keyRule).")],
        requestBody: APISchemas.ref("AssignPlacementRequest"),
        responses: [.json(200, "The placement.", APISchemas.ref("Placement"))])

    static let getPlacement = OperationDoc(
        "getPlacement", summary: "Read a placement", tag: "placements",
        parameters: [.path("key", "The placement key: \(PlacementService.keyRule).")],
        responses: [.json(200, "The placement.", APISchemas.ref("Placement"))])

    static let deletePlacement = OperationDoc(
        "deletePlacement", summary: "Delete a placement and its rules", tag: "placements",
        parameters: [.path("key", "The placement key: \(PlacementService.keyRule).")],
        responses: [.empty(204, "Deleted.")])

    static let setPlacementRules = OperationDoc(
        "setPlacementRules", summary: "Replace the placement's ordered rules",
        description:
            "Every rule is validated (unknown or archived paywalls, operators, value types); 422 lists each error with its path.",
        tag: "placements", parameters: [.path("key", "The placement key: \(PlacementService.keyRule).")],
        requestBody: APISchemas.ref("RulesRequest"),
        responses: [.json(200, "The placement with its new rules.", APISchemas.ref("Placement"))])

    static let resolvePlacement = OperationDoc(
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
}
