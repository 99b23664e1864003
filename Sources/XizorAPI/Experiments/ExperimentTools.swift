import PaywallFormat
import XizorDomain

/// A/B experiments on placements: create, list, read, start, stop, re-weight, promote, results.
/// Thin adapters over ExperimentService (the same as the REST routes).
enum ExperimentTools {
    static var tools: [MCPTool] { [create, list, get, start, stop, setWeights, promote, results] }

    static let experimentID = ToolSchema.string(
        "The experiment's id (exp_…), as create_experiment answers it.", maxLength: 100)

    static let create = MCPTool(
        name: "create_experiment", scope: .experiments, title: "Create an A/B experiment",
        description: """
            Creates a draft experiment: 2 to 5 variants, each a paywall of this app with an integer weight (the first is the \
            control), and an optional holdout weight (holdout subscribers are shown no paywall: the SDK gets 204). Target it \
            with assign_placement or set_placement_rules ('experimentId'), then start_experiment. Assignment is sticky per \
            subscriberId (a stable hash), needs every variant's paywall published before it starts, and requests without a \
            subscriberId get the control.
            """,
        inputSchema: ToolSchema.object(
            [
                "name": ToolSchema.string("A name for the dashboard.", maxLength: 200),
                "variants": [
                    "type": "array", "minItems": 2, "maxItems": 5,
                    "description": "Variants in order; the first is the control.",
                    "items": ToolSchema.object(
                        [
                            "paywallId": ToolSchema.paywallID,
                            "weight": ToolSchema.integer(
                                "Relative share of subscribers.", minimum: 0, maximum: 1_000_000),
                            "name": ToolSchema.string(
                                "Variant name ([A-Za-z0-9_-]); default control, variant_1, …", maxLength: 64),
                        ], required: ["paywallId", "weight"]),
                ],
                "holdoutWeight": ToolSchema.integer(
                    "Relative share of subscribers shown nothing (default 0).", minimum: 0, maximum: 1_000_000),
            ], required: ["variants"]),
        readOnly: false, idempotent: false
    ) { call in
        try call.services.experiments.create(appID: call.appID, body: call.arguments).json
    }

    static let start = MCPTool(
        name: "start_experiment", scope: .experiments, title: "Start an experiment",
        description:
            "Starts a draft experiment: from the next SDK request on, its placements and rules split subscribers among the variants.",
        inputSchema: ToolSchema.object(["experimentId": experimentID], required: ["experimentId"]),
        readOnly: false, idempotent: false
    ) { call in
        try call.services.experiments.start(appID: call.appID, id: try call.string("experimentId")).json
    }

    static let stop = MCPTool(
        name: "stop_experiment", scope: .experiments, title: "Stop an experiment",
        description: """
            Stops a running experiment: its placements and rules serve their own paywall again at once. To keep a winner \
            instead, use promote_experiment.
            """,
        inputSchema: ToolSchema.object(["experimentId": experimentID], required: ["experimentId"]),
        readOnly: false, idempotent: false
    ) { call in
        try call.services.experiments.stop(appID: call.appID, id: try call.string("experimentId")).json
    }

    static let list = MCPTool(
        name: "list_experiments", scope: .read, title: "List experiments",
        description:
            "The app's experiments, oldest first: status (draft, running, stopped), variants with paywalls and weights, holdout.",
        inputSchema: ToolSchema.object([:]),
        readOnly: true, idempotent: true
    ) { call in
        ["items": .array(try call.services.experiments.list(appID: call.appID).map(\.json))]
    }

    static let get = MCPTool(
        name: "get_experiment", scope: .read, title: "Read an experiment",
        description: "One experiment: status, variants (paywall, weight, name), holdout weight, start and stop times.",
        inputSchema: ToolSchema.object(["experimentId": experimentID], required: ["experimentId"]),
        readOnly: true, idempotent: true
    ) { call in
        try call.services.experiments.experiment(appID: call.appID, id: try call.string("experimentId")).json
    }

    static let setWeights = MCPTool(
        name: "set_experiment_weights", scope: .experiments, title: "Re-weight an experiment",
        description: """
            Changes the variants' weights (one per variant, in order) and optionally the holdout weight. Live on the next SDK \
            request; only the share of subscribers the new weights require moves (everyone else keeps their variant).
            """,
        inputSchema: ToolSchema.object(
            [
                "experimentId": experimentID,
                "weights": [
                    "type": "array", "minItems": 2, "maxItems": 5,
                    "description": "One weight per variant, in the variants' order.",
                    "items": ToolSchema.integer("Relative share of subscribers.", minimum: 0, maximum: 1_000_000),
                ],
                "holdoutWeight": ToolSchema.integer(
                    "Relative share of subscribers shown nothing.", minimum: 0, maximum: 1_000_000),
            ], required: ["experimentId", "weights"]),
        readOnly: false, idempotent: true
    ) { call in
        var body: [String: JSONValue] = ["weights": try call.value("weights")]
        if let holdout = call.arguments["holdoutWeight"] { body["holdoutWeight"] = holdout }
        return try call.services.experiments.setWeights(
            appID: call.appID, id: try call.string("experimentId"), body: .object(body)
        ).json
    }

    static let promote = MCPTool(
        name: "promote_experiment", scope: .experiments, title: "Promote a variant",
        description: """
            Keeps a winner: the variant's paywall becomes the paywall of every placement and rule that targets the \
            experiment, which is detached and stopped. Live on the next SDK request. Check get_experiment_results first.
            """,
        inputSchema: ToolSchema.object(
            [
                "experimentId": experimentID,
                "variant": ToolSchema.string(
                    "The variant's name (control, or as list_experiments shows it).", maxLength: 64),
            ], required: ["experimentId", "variant"]),
        // It replaces what the experiment's placements serve and ends the experiment: destructive.
        readOnly: false, destructive: true, idempotent: false
    ) { call in
        try call.services.experiments.promote(
            appID: call.appID, id: try call.string("experimentId"), variant: try call.string("variant")
        ).json
    }

    static let results = MCPTool(
        name: "get_experiment_results", scope: .analytics, title: "Experiment results",
        description: """
            Per variant: impressions, unique subscribers, conversions (subscribers who completed a purchase), conversion rate \
            with a 95 % Wilson interval, and the difference to the control with a 95 % interval; the Bayesian probability \
            (uniform Beta(1, 1) prior) that the variant beats the control and that it is the best; revenue per subscriber per \
            currency (purchase_completed events with a price and currency); and the subscribers per variant a test needs to \
            detect a relative change of minimumDetectableEffect (default 0.1) in the control's rate, with how many are still \
            missing. Counted from SDK events that carry the experimentId and variant; each variant also carries `verified`, \
            the App Store's and RevenueCat's own figures credited to it (trials, conversions, refunds, gross and net revenue), \
            and `metric` chooses which conversion the rates and probabilities use.
            """,
        inputSchema: ToolSchema.object(
            [
                "experimentId": experimentID,
                "minimumDetectableEffect": [
                    "type": "number", "exclusiveMinimum": 0, "maximum": 10,
                    "description": "The relative change to detect (0.1 = 10 %).",
                ],
                "environment": [
                    "enum": ["production", "sandbox", "all"],
                    "description": "Which events to count (production unless asked).",
                ],
                "metric": [
                    "enum": .array(ResultsMetric.allCases.map { .string($0.rawValue) }),
                    "description":
                        "What counts as a conversion: conversion (the app's purchase_completed events, the default), or the stores' verified figures: verified_conversion (paid), trial_start, trial_conversion.",
                ],
            ],
            required: ["experimentId"]),
        readOnly: true, idempotent: true
    ) { call in
        try call.services.experiments.results(
            appID: call.appID, id: try call.string("experimentId"),
            minimumDetectableEffect: call.arguments["minimumDetectableEffect"]?.numberValue?.doubleValue
                ?? ExperimentService.defaultMinimumDetectableEffect,
            environment: try EnvironmentFilter.parse(call.optionalString("environment")),
            metric: try ResultsMetric.parse(call.optionalString("metric")))
    }
}
