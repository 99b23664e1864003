import HTTP
import PaywallFormat
import XizorDomain

/// `GET /v1/audit-log` (scope `keys`: who did what is the key administrator's to read), and the
/// instance's own log for the admin.
struct AuditRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        let services = services
        routes.secret(.GET, "/v1/audit-log", scope: .keys, Self.listAuditLog) { request, caller in
            try Self.page(of: caller.appID, request, services: services)
        }
        // The instance's own log (sign-ins, failed sign-ins, accounts, sessions): the admin's.
        routes.admin(.GET, "/v1/instance/audit-log", Self.listInstanceAuditLog) { request, _ in
            try Self.page(of: nil, request, services: services)
        }
    }

    private static func page(of appID: String?, _ request: HTTPRequest, services: XizorServices) throws -> HTTPResponse
    {
        var filter = AuditFilter(
            targetKind: request.query("targetKind"), targetID: request.query("targetId"),
            keyID: request.query("keyId"))
        if let action = request.query("action") {
            guard AuditAction(rawValue: action) != nil else {
                throw ServiceError(
                    .badRequest, "invalid_action",
                    "'\(action)' is not an audit action; docs/integrations.md lists them.")
            }
            filter.action = action
        }
        filter.from = try EventService.time(request.query("from"), name: "from")
        filter.to = try EventService.time(request.query("to"), name: "to")
        let page = try services.audit.entries(
            appID: appID, filter: filter, cursor: request.query("cursor"), limit: try PageSize.from(request))
        return APIResponse.json([
            "entries": .array(page.items.map(\.json)), "nextCursor": page.nextCursor.map { .string($0) } ?? .null,
        ])
    }
}
