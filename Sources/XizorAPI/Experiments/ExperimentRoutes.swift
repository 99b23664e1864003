import HTTP
import PaywallFormat
import XizorDomain

/// Experiments (secret key): create, read, weights, lifecycle, promotion and results.
struct ExperimentRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        let experiments = services.experiments
        routes.secret(
            .POST, "/v1/experiments", scope: .experiments,
            OperationDoc(
                "createExperiment", summary: "Create an experiment (draft)", tag: "experiments",
                requestBody: APISchemas.ref("CreateExperimentRequest"),
                responses: [
                    .json(
                        201, "The experiment.", APISchemas.ref("Experiment"),
                        headers: [("Location", "The experiment's URL.")])
                ])
        ) { request, caller in
            let appID = caller.appID
            let created = try experiments.create(appID: appID, body: try request.jsonBody())
            return APIResponse.json(
                created.json, status: .created, headers: ["Location": "/v1/experiments/\(created.id)"])
        }
        routes.secret(
            .GET, "/v1/experiments", scope: .read,
            OperationDoc(
                "listExperiments", summary: "List experiments", tag: "experiments",
                responses: [.json(200, "The experiments.", APISchemas.ref("ExperimentList"))])
        ) { request, caller in
            let appID = caller.appID
            return APIResponse.json(["items": .array(try experiments.list(appID: appID).map(\.json))])
        }
        routes.secret(
            .GET, "/v1/experiments/:id", scope: .read,
            OperationDoc(
                "getExperiment", summary: "Read an experiment", tag: "experiments",
                parameters: [.path("id", "An experiment id.")],
                responses: [.json(200, "The experiment.", APISchemas.ref("Experiment"))])
        ) { request, caller in
            let appID = caller.appID
            return APIResponse.json(try experiments.experiment(appID: appID, id: request.parameter("id")).json)
        }
        routes.secret(
            .PUT, "/v1/experiments/:id/weights", scope: .experiments,
            OperationDoc(
                "setExperimentWeights", summary: "Change the variants' weights", tag: "experiments",
                parameters: [.path("id", "An experiment id.")],
                requestBody: APISchemas.ref("ExperimentWeightsRequest"),
                responses: [
                    .json(200, "The experiment.", APISchemas.ref("Experiment")),
                    .problem(409, "The experiment has stopped."),
                ])
        ) { request, caller in
            let appID = caller.appID
            return APIResponse.json(
                try experiments.setWeights(appID: appID, id: request.parameter("id"), body: try request.jsonBody()).json
            )
        }
        routes.secret(
            .POST, "/v1/experiments/:id/start", scope: .experiments,
            OperationDoc(
                "startExperiment", summary: "Start the experiment", tag: "experiments",
                parameters: [.path("id", "An experiment id.")],
                responses: [
                    .json(200, "The experiment.", APISchemas.ref("Experiment")),
                    .problem(409, "Not possible in the experiment's current status."),
                ])
        ) { request, caller in
            let appID = caller.appID
            return APIResponse.json(try experiments.start(appID: appID, id: request.parameter("id")).json)
        }
        routes.secret(
            .POST, "/v1/experiments/:id/stop", scope: .experiments,
            OperationDoc(
                "stopExperiment", summary: "Stop the experiment", tag: "experiments",
                parameters: [.path("id", "An experiment id.")],
                responses: [
                    .json(200, "The experiment.", APISchemas.ref("Experiment")),
                    .problem(409, "Not possible in the experiment's current status."),
                ])
        ) { request, caller in
            let appID = caller.appID
            return APIResponse.json(try experiments.stop(appID: appID, id: request.parameter("id")).json)
        }
        routes.secret(
            .POST, "/v1/experiments/:id/promote", scope: .experiments,
            OperationDoc(
                "promoteExperimentVariant",
                summary: "Promote a variant to every placement and rule that targets the experiment",
                tag: "experiments", parameters: [.path("id", "An experiment id.")],
                requestBody: APISchemas.ref("PromoteRequest"),
                responses: [
                    .json(200, "The experiment.", APISchemas.ref("Experiment")),
                    .problem(409, "Not possible in the experiment's current status."),
                ])
        ) { request, caller in
            let appID = caller.appID
            guard let variant = try request.jsonBody().optionalString("variant", path: "$") else {
                throw ServiceError.badField(
                    "$.variant", "missing_required_field", "Name the winning variant: {\"variant\": \"…\"}.")
            }
            return APIResponse.json(
                try experiments.promote(appID: appID, id: request.parameter("id"), variant: variant).json)
        }
        routes.secret(
            .GET, "/v1/experiments/:id/results", scope: .analytics,
            OperationDoc(
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
                ],
                responses: [
                    .json(200, "The results.", APISchemas.ref("ExperimentResults")),
                    .problem(422, "`number_out_of_range`: minimumDetectableEffect is not above 0 and at most 10."),
                ] + AnalyticsGate.refusals)
        ) { request, caller in
            let appID = caller.appID
            var mde = ExperimentService.defaultMinimumDetectableEffect
            if let raw = request.query("minimumDetectableEffect") {
                guard let value = Double(raw), value.isFinite else {
                    throw ServiceError.badField(
                        "$.minimumDetectableEffect", "type_mismatch",
                        "minimumDetectableEffect is a number (0.1 = 10 %).")
                }
                mde = value
            }
            return APIResponse.json(
                try experiments.results(
                    appID: appID, id: request.parameter("id"), minimumDetectableEffect: mde,
                    environment: try EnvironmentFilter.parse(request.query("environment"))))
        }
    }
}
