import HTTP
import PaywallFormat
import XizorDomain

/// Experiments (secret key): create, read, weights, lifecycle, promotion and results.
struct ExperimentRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        let experiments = services.experiments
        routes.secret(.POST, "/v1/experiments", scope: .experiments, Self.createExperiment) { request, caller in
            let appID = caller.appID
            let created = try experiments.create(appID: appID, body: try request.jsonBody())
            return APIResponse.json(
                created.json, status: .created, headers: ["Location": "/v1/experiments/\(created.id)"])
        }
        routes.secret(.GET, "/v1/experiments", scope: .read, Self.listExperiments) { request, caller in
            let appID = caller.appID
            return APIResponse.json(["items": .array(try experiments.list(appID: appID).map(\.json))])
        }
        routes.secret(.GET, "/v1/experiments/:id", scope: .read, Self.getExperiment) { request, caller in
            let appID = caller.appID
            return APIResponse.json(try experiments.experiment(appID: appID, id: request.parameter("id")).json)
        }
        routes.secret(.PUT, "/v1/experiments/:id/weights", scope: .experiments, Self.setExperimentWeights) {
            request, caller in
            let appID = caller.appID
            return APIResponse.json(
                try experiments.setWeights(appID: appID, id: request.parameter("id"), body: try request.jsonBody()).json
            )
        }
        routes.secret(.POST, "/v1/experiments/:id/start", scope: .experiments, Self.startExperiment) {
            request, caller in
            let appID = caller.appID
            return APIResponse.json(try experiments.start(appID: appID, id: request.parameter("id")).json)
        }
        routes.secret(.POST, "/v1/experiments/:id/stop", scope: .experiments, Self.stopExperiment) { request, caller in
            let appID = caller.appID
            return APIResponse.json(try experiments.stop(appID: appID, id: request.parameter("id")).json)
        }
        routes.secret(.POST, "/v1/experiments/:id/promote", scope: .experiments, Self.promoteExperimentVariant) {
            request, caller in
            let appID = caller.appID
            guard let variant = try request.jsonBody().optionalString("variant", path: "$") else {
                throw ServiceError.badField(
                    "$.variant", "missing_required_field", "Name the winning variant: {\"variant\": \"…\"}.")
            }
            return APIResponse.json(
                try experiments.promote(appID: appID, id: request.parameter("id"), variant: variant).json)
        }
        routes.secret(.GET, "/v1/experiments/:id/results", scope: .analytics, Self.getExperimentResults) {
            request, caller in
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
                    environment: try EnvironmentFilter.parse(request.query("environment")),
                    metric: try ResultsMetric.parse(request.query("metric"))))
        }
    }
}
