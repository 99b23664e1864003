import HTTP
import PaywallFormat
import XizorDomain

/// Events: the SDK's batches in (public key), and the funnel per version out (secret key).
struct EventRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        routes.publicKey(
            .POST, "/v1/sdk/events",
            OperationDoc(
                "ingestEvents", summary: "Record a batch of funnel events",
                description: "Idempotent by event `id`; 202 once durable.",
                tag: "sdk", requestBody: APISchemas.ref("EventBatch"),
                responses: [.json(202, "What was accepted, duplicated and rejected.", APISchemas.ref("EventOutcome"))])
        ) { request, caller in
            let appID = caller.appID
            try request.requireJSONContentType()
            let outcome = try services.events.ingest(
                appID: appID, body: request.body, keyEnvironment: caller.environment)
            return APIResponse.json(outcome.json, status: .accepted)
        }
        routes.secret(
            .GET, "/v1/paywalls/:id/analytics", scope: .analytics,
            OperationDoc(
                "getPaywallAnalytics", summary: "The funnel per published version",
                description:
                    "Counts of SDK events per version, optionally cut by time, placement and `context.KEY=VALUE` (typed like the SDK's context).",
                tag: "analytics",
                parameters: [
                    .path("id", "A paywall id."),
                    .query("from", "Start (inclusive): milliseconds since 1970 or an RFC 3339 date-time."),
                    .query("to", "End (exclusive): milliseconds since 1970 or an RFC 3339 date-time."),
                    .query("placement", "Only events from this placement."),
                    .query(
                        "interval",
                        "Adds a time series per version: `hour` or `day` buckets (UTC), every bucket from `from` (else the first with events) to `to` (else the last).",
                        schema: ["enum": ["hour", "day"]]),
                    EnvironmentFilter.parameter,
                ],
                responses: [
                    .json(200, "One funnel per published version.", APISchemas.ref("PaywallAnalytics")),
                    .problem(400, "`from` or `to` is not a time."),
                    .problem(422, "`interval` is not hour or day, or the series would exceed 10,000 buckets."),
                ] + AnalyticsGate.refusals)
        ) { request, caller in
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
        routes.secret(
            .GET, "/v1/events/export", scope: .analytics,
            OperationDoc(
                "exportEvents", summary: "Stream the app's events as NDJSON",
                description:
                    "Every event whose `timestamp` is in [from, to), one JSON object per line (`id`, `name`, `timestamp`, `receivedAt`, `environment`, and `placement`, `paywallId`, `version`, `subscriberId`, `experimentId`, `variant`, `context`, `properties` when the event has them), in id order; chunked, gzip when accepted. Read a page of 1,000 at a time, so neither the server's memory nor a long transaction grows with the export.",
                tag: "analytics",
                parameters: [
                    .query("from", "Start (inclusive): milliseconds since 1970 or an RFC 3339 date-time."),
                    .query("to", "End (exclusive): milliseconds since 1970 or an RFC 3339 date-time."),
                    EnvironmentFilter.parameter,
                ],
                responses: [
                    APIResponseSpec(
                        status: 200, description: "NDJSON, one event per line.", schema: ["type": "string"],
                        contentType: "application/x-ndjson",
                        headers: [("Content-Encoding", "gzip when the request accepts it.")]),
                    .problem(400, "`from` or `to` is not a time."),
                ])
        ) { request, caller in
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
