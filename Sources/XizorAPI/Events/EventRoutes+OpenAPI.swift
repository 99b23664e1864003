import HTTP
import PaywallFormat
import XizorDomain

/// The OpenAPI description of each operation `EventRoutes` registers, one table beside the routes so
/// their `register` reads as what each route does; `APIRoutes` puts both together when a route is
/// declared, so neither can be registered without the other.
extension EventRoutes {
    static let ingestEvents = OperationDoc(
        "ingestEvents", summary: "Record a batch of funnel events",
        description: "Idempotent by event `id`; 202 once durable.",
        tag: "sdk", requestBody: APISchemas.ref("EventBatch"),
        responses: [.json(202, "What was accepted, duplicated and rejected.", APISchemas.ref("EventOutcome"))])

    static let getPaywallAnalytics = OperationDoc(
        "getPaywallAnalytics", summary: "The funnel per published version",
        description:
            "Counts of SDK events per version, optionally cut by time, placement and `context.KEY=VALUE` (typed like the SDK's context). A range is counted in whole UTC hours (`from` moved back, `to` forward to an hour boundary), which the answer's `from` and `to` state.",
        tag: "analytics",
        parameters: [
            .path("id", "A paywall id."),
            .query(
                "from",
                "Start (inclusive): milliseconds since 1970 or an RFC 3339 date-time; moved back to its UTC hour's start."
            ),
            .query(
                "to",
                "End (exclusive): milliseconds since 1970 or an RFC 3339 date-time; moved forward to a UTC hour boundary."
            ),
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

    static let exportEvents = OperationDoc(
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
}
