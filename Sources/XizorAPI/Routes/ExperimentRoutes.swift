import HTTP
import PaywallFormat

/// Experiments (secret key): create, read, weights, lifecycle, promotion and results.
struct ExperimentRoutes {
    let services: XizorServices
    let auth: Authenticator

    func register(in routes: inout APIRoutes) {
        let experiments = services.experiments
        routes.post("/v1/experiments", OperationDoc(
            "createExperiment", summary: "Create an experiment (draft)", tag: "experiments", auth: .secret,
            requestBody: APISchemas.ref("CreateExperimentRequest"),
            responses: [.json(201, "The experiment.", APISchemas.ref("Experiment"), headers: [("Location", "The experiment's URL.")])])) { request in
            let appID = try auth.secretApp(request)
            let created = try experiments.create(appID: appID, body: try request.jsonBody())
            return APIResponse.json(created.json, status: .created, headers: ["Location": "/v1/experiments/\(created.id)"])
        }
        routes.get("/v1/experiments", OperationDoc(
            "listExperiments", summary: "List experiments", tag: "experiments", auth: .secret,
            responses: [.json(200, "The experiments.", APISchemas.ref("ExperimentList"))])) { request in
            let appID = try auth.secretApp(request)
            return APIResponse.json(["items": .array(try experiments.list(appID: appID).map(\.json))])
        }
        routes.get("/v1/experiments/:id", OperationDoc(
            "getExperiment", summary: "Read an experiment", tag: "experiments", auth: .secret, parameters: [.path("id", "An experiment id.")],
            responses: [.json(200, "The experiment.", APISchemas.ref("Experiment"))])) { request in
            let appID = try auth.secretApp(request)
            return APIResponse.json(try experiments.experiment(appID: appID, id: request.parameter("id")).json)
        }
        routes.put("/v1/experiments/:id/weights", OperationDoc(
            "setExperimentWeights", summary: "Change the variants' weights", tag: "experiments", auth: .secret, parameters: [.path("id", "An experiment id.")],
            requestBody: APISchemas.ref("ExperimentWeightsRequest"),
            responses: [.json(200, "The experiment.", APISchemas.ref("Experiment")),
                        .problem(409, "The experiment has stopped.")])) { request in
            let appID = try auth.secretApp(request)
            return APIResponse.json(try experiments.setWeights(appID: appID, id: request.parameter("id"), body: try request.jsonBody()).json)
        }
        routes.post("/v1/experiments/:id/start", OperationDoc(
            "startExperiment", summary: "Start the experiment", tag: "experiments", auth: .secret, parameters: [.path("id", "An experiment id.")],
            responses: [.json(200, "The experiment.", APISchemas.ref("Experiment")),
                        .problem(409, "Not possible in the experiment's current status.")])) { request in
            let appID = try auth.secretApp(request)
            return APIResponse.json(try experiments.start(appID: appID, id: request.parameter("id")).json)
        }
        routes.post("/v1/experiments/:id/stop", OperationDoc(
            "stopExperiment", summary: "Stop the experiment", tag: "experiments", auth: .secret, parameters: [.path("id", "An experiment id.")],
            responses: [.json(200, "The experiment.", APISchemas.ref("Experiment")),
                        .problem(409, "Not possible in the experiment's current status.")])) { request in
            let appID = try auth.secretApp(request)
            return APIResponse.json(try experiments.stop(appID: appID, id: request.parameter("id")).json)
        }
        routes.post("/v1/experiments/:id/promote", OperationDoc(
            "promoteExperimentVariant", summary: "Promote a variant to every placement and rule that targets the experiment",
            tag: "experiments", auth: .secret, parameters: [.path("id", "An experiment id.")], requestBody: APISchemas.ref("PromoteRequest"),
            responses: [.json(200, "The experiment.", APISchemas.ref("Experiment")),
                        .problem(409, "Not possible in the experiment's current status.")])) { request in
            let appID = try auth.secretApp(request)
            guard let variant = try request.jsonBody().optionalString("variant", path: "$") else {
                throw ServiceError.badField("$.variant", "missing_required_field", "Name the winning variant: {\"variant\": \"…\"}.")
            }
            return APIResponse.json(try experiments.promote(appID: appID, id: request.parameter("id"), variant: variant).json)
        }
        routes.get("/v1/experiments/:id/results", OperationDoc(
            "getExperimentResults", summary: "Conversion per variant with confidence intervals", tag: "experiments", auth: .secret, parameters: [.path("id", "An experiment id.")],
            responses: [.json(200, "The results.", APISchemas.ref("ExperimentResults"))])) { request in
            let appID = try auth.secretApp(request)
            return APIResponse.json(try experiments.results(appID: appID, id: request.parameter("id")))
        }
    }
}
