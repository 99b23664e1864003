import HTTP
import PaywallFormat
import XizorDomain

/// The OpenAPI description of each operation `OperationsRoutes` registers, one table beside the routes so
/// their `register` reads as what each route does; `APIRoutes` puts both together when a route is
/// declared, so neither can be registered without the other.
extension OperationsRoutes {
    static let getHealth = OperationDoc(
        "getHealth", summary: "Liveness: the process answers", tag: "meta",
        responses: [.json(200, "Alive.", APISchemas.ref("Health"))])

    static let getReadiness = OperationDoc(
        "getReadiness",
        summary: "Readiness: not draining, the database open, migrated and writable, room on disk",
        description:
            "The write probe upserts one row in a real write transaction. 503 codes: `draining`, `disk_full`, `changes_behind`, `database_unwritable`, `migrations_pending`.",
        tag: "meta",
        responses: [
            .json(200, "Ready.", APISchemas.ref("Health")),
            .problem(
                503, "Draining, the disk is full, the database is not writable, or migrations are pending."),
        ])

    static let getMetrics = OperationDoc(
        "getMetrics", summary: "Prometheus metrics (text format 0.0.4)",
        description:
            "Open unless `metrics.token` is configured; then `Authorization: Bearer TOKEN` is required. Keep it off the public network either way.",
        tag: "meta",
        responses: [
            APIResponseSpec(
                status: 200, description: "Every metric in the Prometheus text format.",
                schema: ["type": "string"], contentType: "text/plain", headers: []),
            .problem(401, "A metrics token is configured and the request did not send it."),
        ])

    static let getDiagnostics = OperationDoc(
        "getDiagnostics",
        summary: "What the running process applies: the storage settings read back from the database",
        description:
            "Admin token. `storage.synchronous` is what the writer connection reports (`PRAGMA synchronous`), not the configured value.",
        tag: "meta",
        responses: [.json(200, "The effective settings.", APISchemas.ref("Diagnostics"))])
}
