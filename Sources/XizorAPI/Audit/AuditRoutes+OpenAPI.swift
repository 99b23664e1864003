import HTTP
import PaywallFormat
import XizorDomain

/// The OpenAPI description of each operation `AuditRoutes` registers, one table beside the routes so
/// their `register` reads as what each route does; `APIRoutes` puts both together when a route is
/// declared, so neither can be registered without the other.
extension AuditRoutes {
    static let listAuditLog = OperationDoc(
        "listAuditLog", summary: "Every write to the app, newest first",
        description:
            "Who (key and kind, through REST, MCP or the CLI), what (action, target), which request, and the SHA-256 of the target's content before and after. Kept `audit.retentionDays`.",
        tag: "apps",
        parameters: filters,
        responses: [
            .json(200, "A page of entries.", APISchemas.ref("AuditLog")),
            .problem(400, "A filter, `limit` or `cursor` is malformed."),
        ])

    static let listInstanceAuditLog = OperationDoc(
        "listInstanceAuditLog", summary: "The instance's own log, newest first",
        description:
            "What belongs to no app: sign-ins and failed sign-ins, account changes, the second factor, ended sessions (docs/teams.md, \"Audit\"). The admin token, or an instance admin's session.",
        tag: "teams",
        parameters: filters,
        responses: [
            .json(200, "A page of entries.", APISchemas.ref("AuditLog")),
            .problem(400, "A filter, `limit` or `cursor` is malformed."),
        ])

    /// The filters both logs take.
    static let filters: [APIParameter] =
        PageSize.parameters + [
            .query(
                "action", "Only this action (e.g. `paywall.published`).",
                schema: ["enum": .array(AuditAction.allCases.map { .string($0.rawValue) })]),
            .query("targetKind", "Only targets of this kind (`paywall`, `placement`, `experiment`, `key`, …)."),
            .query("targetId", "Only this target."),
            .query("keyId", "Only writes made with this key."),
            .query("from", "Start (inclusive): milliseconds since 1970 or an RFC 3339 date-time."),
            .query("to", "End (exclusive): milliseconds since 1970 or an RFC 3339 date-time."),
        ]
}
