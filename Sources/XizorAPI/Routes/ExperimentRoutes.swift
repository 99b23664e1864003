import HTTP
import PaywallFormat

/// Experiments (secret key): create, read, weights, lifecycle, promotion and results.
struct ExperimentRoutes {
    let services: XizorServices
    let auth: Authenticator

    func register(in router: inout Router) {
        let experiments = services.experiments
        router.post("/v1/experiments") { request in
            let appID = try auth.secretApp(request)
            let created = try experiments.create(appID: appID, body: try request.jsonBody())
            return APIResponse.json(created.json, status: .created, headers: ["Location": "/v1/experiments/\(created.id)"])
        }
        router.get("/v1/experiments") { request in
            let appID = try auth.secretApp(request)
            return APIResponse.json(["items": .array(try experiments.list(appID: appID).map(\.json))])
        }
        router.get("/v1/experiments/:id") { request in
            let appID = try auth.secretApp(request)
            return APIResponse.json(try experiments.experiment(appID: appID, id: request.parameter("id")).json)
        }
        router.put("/v1/experiments/:id/weights") { request in
            let appID = try auth.secretApp(request)
            return APIResponse.json(try experiments.setWeights(appID: appID, id: request.parameter("id"), body: try request.jsonBody()).json)
        }
        router.post("/v1/experiments/:id/start") { request in
            let appID = try auth.secretApp(request)
            return APIResponse.json(try experiments.start(appID: appID, id: request.parameter("id")).json)
        }
        router.post("/v1/experiments/:id/stop") { request in
            let appID = try auth.secretApp(request)
            return APIResponse.json(try experiments.stop(appID: appID, id: request.parameter("id")).json)
        }
        router.post("/v1/experiments/:id/promote") { request in
            let appID = try auth.secretApp(request)
            guard let variant = try request.jsonBody().optionalString("variant", path: "$") else {
                throw ServiceError.badField("$.variant", "missing_required_field", "Name the winning variant: {\"variant\": \"…\"}.")
            }
            return APIResponse.json(try experiments.promote(appID: appID, id: request.parameter("id"), variant: variant).json)
        }
        router.get("/v1/experiments/:id/results") { request in
            let appID = try auth.secretApp(request)
            return APIResponse.json(try experiments.results(appID: appID, id: request.parameter("id")))
        }
    }
}
