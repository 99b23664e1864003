import HTTP
import PaywallFormat
import XizorDomain

/// Events: the SDK's batches in (public key), and the funnel per version out (secret key).
struct EventRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        routes.publicKey(.POST, "/v1/sdk/events", Self.ingestEvents) { request, caller in
            let appID = caller.appID
            try request.requireJSONContentType()
            let outcome = try services.events.ingest(
                appID: appID, body: request.body, keyEnvironment: caller.environment)
            return APIResponse.json(outcome.json, status: .accepted)
        }
        routes.secret(.GET, "/v1/paywalls/:id/analytics", scope: .analytics, Self.getPaywallAnalytics) {
            request, caller in
            let appID = caller.appID
            var filter = AnalyticsService.Filter()
            filter.from = try EventRoutes.time(request.query("from"), name: "from")
            filter.to = try EventRoutes.time(request.query("to"), name: "to")
            filter.placement = request.query("placement")
            filter.environment = try EnvironmentFilter.parse(request.query("environment"))
            filter.context = request.presentationContext
            if let raw = request.query("interval") {
                guard let interval = AnalyticsService.Interval(rawValue: raw) else {
                    throw ServiceError.badField(
                        "$.query.interval", "invalid_enum_value", "'interval' is hour or day, not '\(raw)'.")
                }
                filter.interval = interval
            }
            return APIResponse.json(
                try services.analytics.funnel(appID: appID, paywallID: request.parameter("id"), filter: filter))
        }
        routes.secret(.GET, "/v1/events/export", scope: .analytics, Self.exportEvents) { request, caller in
            let appID = caller.appID
            let from = try EventRoutes.time(request.query("from"), name: "from")
            let to = try EventRoutes.time(request.query("to"), name: "to")
            let environment = try EnvironmentFilter.parse(request.query("environment"))
            let events = services.events
            // The server gzips the stream as it goes when the client accepts it.
            return HTTPResponse(
                status: .ok, headers: ["Content-Type": "application/x-ndjson", "Cache-Control": "no-store"],
                compressible: true
            ) { writer in
                try events.export(appID: appID, from: from, to: to, environment: environment) { try writer.write($0) }
            }
        }
    }
}

extension EventRoutes {
    /// A time query parameter: integer milliseconds since 1970 or an RFC 3339 date-time.
    static func time(_ raw: String?, name: String) throws -> Int64? { try EventService.time(raw, name: name) }
}

extension AnalyticsGate {
    /// How every operation that reads through the gate may be refused (OpenAPI).
    static let refusals: [APIResponseSpec] = [
        .problem(
            429,
            "`analytics_busy`: this app already runs `analytics.maxConcurrentPerApp` analytics requests; `Retry-After` says when to retry."
        ),
        .problem(
            503,
            "`analytics_busy`: the server runs `analytics.maxConcurrent` analytics requests; `query_time_limit`: a statement ran past `analytics.queryTimeLimitMs`. Both with `Retry-After`."
        ),
    ]
}
