import HTTP
import PaywallFormat
import XizorDomain

/// `GET /v1/audit-log` (scope `keys`: who did what is the key administrator's to read).
struct AuditRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        routes.secret(
            .GET, "/v1/audit-log", scope: .keys,
            OperationDoc(
                "listAuditLog", summary: "Every write to the app, newest first",
                description:
                    "Who (key and kind, through REST, MCP or the CLI), what (action, target), which request, and the SHA-256 of the target's content before and after. Kept `audit.retentionDays`.",
                tag: "apps",
                parameters: PageSize.parameters + [
                    .query(
                        "action", "Only this action (e.g. `paywall.published`).",
                        schema: ["enum": .array(AuditAction.allCases.map { .string($0.rawValue) })]),
                    .query("targetKind", "Only targets of this kind (`paywall`, `placement`, `experiment`, `key`, …)."),
                    .query("targetId", "Only this target."),
                    .query("keyId", "Only writes made with this key."),
                    .query("from", "Start (inclusive): milliseconds since 1970 or an RFC 3339 date-time."),
                    .query("to", "End (exclusive): milliseconds since 1970 or an RFC 3339 date-time."),
                ],
                responses: [
                    .json(200, "A page of entries.", APISchemas.ref("AuditLog")),
                    .problem(400, "A filter, `limit` or `cursor` is malformed."),
                ])
        ) { request, caller in
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
                appID: caller.appID, filter: filter, cursor: request.query("cursor"),
                limit: try PageSize.from(request))
            return APIResponse.json([
                "entries": .array(page.items.map(\.json)), "nextCursor": page.nextCursor.map { .string($0) } ?? .null,
            ])
        }
    }
}
