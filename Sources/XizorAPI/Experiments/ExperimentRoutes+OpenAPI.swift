import HTTP
import PaywallFormat
import XizorDomain

/// The OpenAPI description of each operation `ExperimentRoutes` registers, one table beside the routes so
/// their `register` reads as what each route does; `APIRoutes` puts both together when a route is
/// declared, so neither can be registered without the other.
extension ExperimentRoutes {
    static let createExperiment = OperationDoc(
        "createExperiment", summary: "Create an experiment (draft)", tag: "experiments",
        requestBody: APISchemas.ref("CreateExperimentRequest"),
        responses: [
            .json(
                201, "The experiment.", APISchemas.ref("Experiment"),
                headers: [("Location", "The experiment's URL.")])
        ])

    static let listExperiments = OperationDoc(
        "listExperiments", summary: "List experiments", tag: "experiments",
        responses: [.json(200, "The experiments.", APISchemas.ref("ExperimentList"))])

    static let getExperiment = OperationDoc(
        "getExperiment", summary: "Read an experiment", tag: "experiments",
        parameters: [.path("id", "An experiment id.")],
        responses: [.json(200, "The experiment.", APISchemas.ref("Experiment"))])

    static let setExperimentWeights = OperationDoc(
        "setExperimentWeights", summary: "Change the variants' weights", tag: "experiments",
        parameters: [.path("id", "An experiment id.")],
        requestBody: APISchemas.ref("ExperimentWeightsRequest"),
        responses: [
            .json(200, "The experiment.", APISchemas.ref("Experiment")),
            .problem(409, "The experiment has stopped."),
        ])

    static let startExperiment = OperationDoc(
        "startExperiment", summary: "Start the experiment", tag: "experiments",
        parameters: [.path("id", "An experiment id.")],
        responses: [
            .json(200, "The experiment.", APISchemas.ref("Experiment")),
            .problem(409, "Not possible in the experiment's current status."),
        ])

    static let stopExperiment = OperationDoc(
        "stopExperiment", summary: "Stop the experiment", tag: "experiments",
        parameters: [.path("id", "An experiment id.")],
        responses: [
            .json(200, "The experiment.", APISchemas.ref("Experiment")),
            .problem(409, "Not possible in the experiment's current status."),
        ])

    static let promoteExperimentVariant = OperationDoc(
        "promoteExperimentVariant",
        summary: "Promote a variant to every placement and rule that targets the experiment",
        tag: "experiments", parameters: [.path("id", "An experiment id.")],
        requestBody: APISchemas.ref("PromoteRequest"),
        responses: [
            .json(200, "The experiment.", APISchemas.ref("Experiment")),
            .problem(409, "Not possible in the experiment's current status."),
        ])

    static let getExperimentResults = OperationDoc(
        "getExperimentResults",
        summary:
            "Conversion per variant with confidence intervals, Bayesian probabilities, revenue and sample size",
        tag: "experiments",
        parameters: [
            .path("id", "An experiment id."),
            .query(
                "minimumDetectableEffect",
                "The relative change of the control's conversion rate the sample size is computed for (default 0.1 = 10 %; above 0, at most 10).",
                schema: ["type": "number", "exclusiveMinimum": 0, "maximum": 10]),
            EnvironmentFilter.parameter,
            .query(
                "metric",
                "What counts as a conversion: `conversion` (the app's `purchase_completed` events, the default) or a verified figure of the stores (`verified_conversion`, `trial_start`, `trial_conversion`; docs/revenue.md). The answer's `source` says which.",
                schema: ["type": "string", "enum": .array(ResultsMetric.allCases.map { .string($0.rawValue) })]),
        ],
        responses: [
            .json(200, "The results.", APISchemas.ref("ExperimentResults")),
            .problem(422, "`number_out_of_range`: minimumDetectableEffect is not above 0 and at most 10."),
        ] + AnalyticsGate.refusals)
}
