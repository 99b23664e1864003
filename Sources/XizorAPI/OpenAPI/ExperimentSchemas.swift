import PaywallFormat
import XizorDomain

/// The component schemas of experiments and their results, analytics, and the SDK's paywall, events and timers.
extension APISchemas {
    /// Beside a report: events received that it could not count yet.
    static let eventsNotCounted: JSONValue = [
        "type": "integer",
        "description":
            "Present when more events than the read adds (20,000) wait to be folded into the rollups (a backfill after an upgrade, or a rollup job behind): they are left out of every figure, and counted in once folded.",
    ]

    /// A report's range as counted: whole UTC hours (docs/analytics.md, "How a range is read").
    static func rangeEnd(_ description: String) -> JSONValue {
        ["type": "integer", "description": .string(description + " Milliseconds since 1970; present when asked.")]
    }

    static var experimentsAndSDK: [String: JSONValue] {
        [
            "Experiment": object([
                "id": string, "name": string, "status": ["enum": ["draft", "running", "stopped"]],
                "variants": array(object(["name": string, "paywallId": string, "weight": integer])),
                "holdoutWeight": integer, "createdAt": millis, "startedAt": nullable("integer"),
                "stoppedAt": nullable("integer"), "winner": nullable("string", "The promoted variant's name."),
                "placements": array(string),
            ]),
            "ExperimentList": object(["items": array(ref("Experiment"))]),
            "CreateExperimentRequest": request(
                [
                    "variants": [
                        "type": "array", "minItems": 2, "maxItems": 5,
                        "items": [
                            "type": "object", "required": ["paywallId", "weight"],
                            "properties": [
                                "paywallId": string, "name": string,
                                "weight": ["type": "integer", "minimum": 0, "maximum": 1_000_000],
                            ],
                        ],
                    ]
                ],
                optional: [
                    "name": ["type": "string", "minLength": 1, "maxLength": 200],
                    "holdoutWeight": ["type": "integer", "minimum": 0],
                ],
                description:
                    "2 to 5 variants, the first is the control; weights are relative integers (at least one above 0). Variant names default to control, variant_1, …"
            ),
            "ExperimentWeightsRequest": request(
                ["weights": array(["type": "integer", "minimum": 0])],
                optional: ["holdoutWeight": ["type": "integer", "minimum": 0]],
                description: "One weight per variant, in order."),
            "PromoteRequest": request(["variant": string]),
            "ExperimentResults": [
                "type": "object",
                "required": [
                    "experimentId", "status", "unit", "confidenceLevel", "variants", "bayesian", "sampleSize",
                    "estimates",
                ],
                "properties": [
                    "experimentId": string, "status": string, "unit": string, "confidenceLevel": ["type": "number"],
                    "metric": [
                        "enum": .array(ResultsMetric.allCases.map { .string($0.rawValue) }),
                        "description": "What `conversions` and the rates count (the `metric` parameter).",
                    ],
                    "source": [
                        "enum": ["client-reported", "verified"],
                        "description":
                            "client-reported: purchase_completed events; verified: the stores' notifications.",
                    ],
                    "environment": [
                        "enum": ["production", "sandbox", "all"], "description": "Which events were counted.",
                    ],
                    "bayesian": ["type": "object", "description": "The prior and method of the probabilities."],
                    "sampleSize": [
                        "type": "object",
                        "description":
                            "What each variant's sampleSize is computed for: minimumDetectableEffect, alpha, power.",
                    ],
                    "variants": array([
                        "type": "object",
                        "required": [
                            "name", "paywallId", "control", "impressions", "conversions", "probabilityToBeatControl",
                            "probabilityToBeBest", "revenue", "sampleSize", "verified",
                        ],
                        "properties": [
                            "name": string, "paywallId": string, "control": boolean,
                            "impressions": integer, "conversions": integer, "uniqueSubscribers": integer,
                            "verified": ref("VerifiedRevenue"),
                            "probabilityToBeatControl": [
                                "type": ["number", "null"], "minimum": 0, "maximum": 1,
                                "description":
                                    "P(rate > the control's) under Beta(1 + conversions, 1 + non-converted) posteriors; null for the control, and while this variant or the control has no subscribers.",
                            ],
                            "probabilityToBeBest": [
                                "type": ["number", "null"], "minimum": 0, "maximum": 1,
                                "description":
                                    "P(rate is the highest of the variants that have subscribers); null for a variant without any.",
                            ],
                            "revenue": array(
                                object([
                                    "currency": string, "amount": ["type": "number"], "purchases": integer,
                                    "perSubscriber": [
                                        "type": ["number", "null"], "description": "amount ÷ uniqueSubscribers.",
                                    ],
                                ])),
                            "sampleSize": [
                                "anyOf": [object(["perVariant": integer, "remaining": integer]), ["type": "null"]],
                                "description":
                                    "Subscribers per variant needed to detect minimumDetectableEffect, and how many this one still lacks; null without a control rate.",
                            ],
                        ],
                    ]),
                    "estimates": ref("AnalyticsEstimates"),
                    "eventsNotCounted": eventsNotCounted,
                    "holdout": [
                        "type": ["object", "null"], "required": ["uniqueSubscribers", "conversions"],
                        "properties": ["uniqueSubscribers": integer, "conversions": integer],
                        "description":
                            "Null without a holdout weight, and for a verified `metric` (no verified purchase is credited to subscribers shown nothing); else its subscribers counted from events tagged `variant: holdout`.",
                    ],
                ],
                "description":
                    "Conversion per variant with 95% confidence intervals and the difference to the control.",
            ],
            "AnalyticsEstimates": object(
                [
                    "fields": [
                        "type": "array",
                        "items": ["enum": .array(AnalyticsService.estimatedFields.map(JSONValue.string))],
                        "description":
                            "The figures of this answer that are estimates; empty when every figure is exact (always so in experiment results).",
                    ],
                    "relativeStandardError": [
                        "type": ["number", "null"],
                        "description":
                            "Their relative standard error (0.0081: HyperLogLog with 2^14 registers); null when nothing is estimated.",
                    ],
                ],
                description:
                    "Distinct subscribers are counted from rollups of hour and day buckets (docs/analytics.md): exact up to 2,048 subscribers in a bucket, a HyperLogLog estimate past that."
            ),
            "PaywallAnalytics": object(
                [
                    "paywallId": string, "estimates": ref("AnalyticsEstimates"),
                    "versions": array(
                        object(
                            funnelFields.merging([
                                "version": integer, "verified": ref("VerifiedRevenue"),
                                "revenue": array(
                                    object(
                                        ["currency": string, "amount": ["type": "number"], "purchases": integer],
                                        description:
                                            "purchase_completed events with a numeric `price` and a `currency` property, summed per currency."
                                    )),
                            ]) { a, _ in a },
                            optional: ["series": array(object(funnelFields.merging(["start": millis]) { a, _ in a }))])),
                ],
                optional: [
                    "eventsNotCounted": eventsNotCounted,
                    "sources": object(
                        ["revenue": ["enum": ["client-reported"]], "verified": ["enum": ["verified"]]],
                        description:
                            "revenue: what the app reported (purchase_completed); verified: the stores' notifications (docs/revenue.md)."
                    ),
                    "interval": ["enum": ["hour", "day"]],
                    "from": rangeEnd("`from`, moved back to the start of its UTC hour: the first instant counted."),
                    "to": rangeEnd(
                        "`to`, moved forward to a UTC hour boundary: the end (exclusive) of what was counted."),
                    "environment": [
                        "enum": ["production", "sandbox", "all"], "description": "Which events were counted.",
                    ],
                    "eventsWithoutContext": [
                        "type": "integer",
                        "description":
                            "With `context.KEY` filters: events in the range and placement that lack one of the filtered keys, so no funnel above counts them.",
                    ],
                ]),
            "SDKPaywall": object(
                [
                    "placement": string, "paywallId": string, "version": integer, "schemaVersion": integer,
                    "locale": string, "document": ref("PaywallDocument"),
                ],
                optional: ["experiment": ref("ExperimentAssignment")],
                description: "The paywall for a placement, in the form the client's schema version reads."),
            "FallbackBundle": object(
                [
                    "placements": [
                        "type": "object",
                        "additionalProperties": object(
                            [
                                "paywallId": string, "version": integer, "schemaVersion": integer,
                                "document": ref("PaywallDocument"),
                            ]),
                    ]
                ],
                description: "Every placement's current paywall, for offline fallback in the app."),
            "EventBatch": request(["events": array(ref("Event"))]),
            "Event": request(
                [
                    "id": string, "name": string,
                    "timestamp": [
                        "type": ["integer", "string"],
                        "description": "Milliseconds since 1970 or an RFC 3339 date-time.",
                    ],
                    "placement": string, "paywallId": string, "version": integer,
                ],
                optional: [
                    "subscriberId": string, "context": ["type": "object", "additionalProperties": ref("ContextValue")],
                    "properties": ["type": "object"], "experimentId": string, "variant": string,
                    "environment": [
                        "enum": ["production", "sandbox"],
                        "description":
                            "`sandbox` for a TestFlight or StoreKit-testing purchase; a sandbox key's events are sandbox whatever they say.",
                    ],
                ]),
            "EventOutcome": object(
                [
                    "accepted": integer, "duplicates": integer,
                    "rejected": array(
                        object(["index": integer, "id": nullable("string"), "errors": array(ref("ValidationIssue"))])),
                ],
                description:
                    "Accepted events are durable; duplicates (same id) are ignored; rejected ones list their errors."),
            "TimerRequest": request(["subscriberId": string, "paywallId": string, "nodeId": string]),
            "TimerStart": object(
                ["startedAt": millis, "created": boolean],
                description: "The persisted start of the timer: the first write wins, later ones answer it."),
        ]
    }
}
