import HTTP
import PaywallFormat

/// What operators and orchestrators call: `/healthz` (the process answers), `/readyz` (send it
/// traffic) and `/metrics` (Prometheus text).
struct OperationsRoutes {
    let readiness: ReadinessCheck
    let exposition: MetricsExposition
    let metricsToken: String?

    func register(in router: inout Router) {
        router.get("/healthz", execution: .inline) { _ in
            APIResponse.json(["status": "ok"], headers: ["Cache-Control": "no-store"])
        }
        router.get("/readyz") { _ in
            try readiness.check()
            return APIResponse.json(["status": "ready"], headers: ["Cache-Control": "no-store"])
        }
        router.get("/metrics") { request in
            if let metricsToken {
                guard let header = request.header("Authorization"), let token = Authenticator.bearerToken(header),
                      Self.constantTimeEqual(Array(token.utf8), Array(metricsToken.utf8)) else {
                    throw ServiceError(.unauthorized, "metrics_token_required", "Send 'Authorization: Bearer TOKEN' with the configured metrics token.")
                }
            }
            return HTTPResponse(status: .ok, headers: ["Content-Type": PrometheusText.contentType, "Cache-Control": "no-store"],
                                body: Array(exposition.render().utf8), compressible: true)
        }
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<a.count { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
