import HTTP
import PaywallFormat
import XizorDomain

/// What operators and orchestrators call: `/healthz` (the process answers), `/readyz` (send it
/// traffic), `/metrics` (Prometheus text) and `/v1/diagnostics` (what the process really runs with).
struct OperationsRoutes {
    let readiness: ReadinessCheck
    let exposition: MetricsExposition
    let metricsToken: String?
    let store: any DataStore
    let version: String

    func register(in routes: inout APIRoutes) {
        routes.open(
            .GET, "/healthz",
            OperationDoc(
                "getHealth", summary: "Liveness: the process answers", tag: "meta",
                responses: [.json(200, "Alive.", APISchemas.ref("Health"))]), execution: .inline
        ) { _ in
            APIResponse.json(["status": "ok"], headers: ["Cache-Control": "no-store"])
        }
        routes.open(
            .GET, "/readyz",
            OperationDoc(
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
        ) { _ in
            try readiness.check()
            return APIResponse.json(["status": "ready"], headers: ["Cache-Control": "no-store"])
        }
        routes.open(
            .GET, "/metrics",
            OperationDoc(
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
        ) { request in
            if let metricsToken {
                guard let header = request.header("Authorization"), let token = RouteGuard.bearerToken(header),
                    Identifiers.constantTimeEqual(Array(token.utf8), Array(metricsToken.utf8))
                else {
                    throw ServiceError(
                        .unauthorized, "metrics_token_required",
                        "Send 'Authorization: Bearer TOKEN' with the configured metrics token.")
                }
            }
            return HTTPResponse(
                status: .ok, headers: ["Content-Type": PrometheusText.contentType, "Cache-Control": "no-store"],
                body: Array(exposition.render().utf8), compressible: true)
        }
        registerDiagnostics(in: &routes)
    }

    /// The storage settings the writer connection reports, so "every 2xx is durable" can be checked
    /// on a running server instead of trusted from the configuration.
    private func registerDiagnostics(in routes: inout APIRoutes) {
        routes.admin(
            .GET, "/v1/diagnostics",
            OperationDoc(
                "getDiagnostics",
                summary: "What the running process applies: the storage settings read back from the database",
                description:
                    "Admin token. `storage.synchronous` is what the writer connection reports (`PRAGMA synchronous`), not the configured value.",
                tag: "meta",
                responses: [.json(200, "The effective settings.", APISchemas.ref("Diagnostics"))])
        ) { request, _ in
            let storage = try store.diagnostics()
            return APIResponse.json(
                ["version": .string(version), "storage": storage], headers: ["Cache-Control": "no-store"])
        }
    }

}
