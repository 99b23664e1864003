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
            Self.getHealth, execution: .inline
        ) { _ in
            APIResponse.json(["status": "ok"], headers: ["Cache-Control": "no-store"])
        }
        routes.open(.GET, "/readyz", Self.getReadiness) { _ in
            try readiness.check()
            return APIResponse.json(["status": "ready"], headers: ["Cache-Control": "no-store"])
        }
        routes.open(.GET, "/metrics", Self.getMetrics) { request in
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
        routes.admin(.GET, "/v1/diagnostics", Self.getDiagnostics) { request, _ in
            let storage = try store.diagnostics()
            return APIResponse.json(
                ["version": .string(version), "storage": storage], headers: ["Cache-Control": "no-store"])
        }
    }

}
