import HTTP
import PaywallFormat
import XizorDomain

/// Named audiences (secret key): conditions written once, referred to by rules as `{"audience": ID}`;
/// and the keys a condition may name (`GET /v1/targeting/keys`, the console's key picker).
struct AudienceRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        let audiences = services.audiences
        routes.secret(.GET, "/v1/audiences", scope: .read, Self.listAudiences) { request, caller in
            APIResponse.json(["items": .array(try audiences.list(appID: caller.appID).map(\.json))])
        }
        let store = services.store
        routes.secret(.GET, "/v1/targeting/keys", scope: .read, Self.listTargetingKeys) { request, caller in
            APIResponse.json(try TargetingKeys.read(store: store, appID: caller.appID).json)
        }
        routes.secret(.GET, "/v1/audiences/:id", scope: .read, Self.getAudience) { request, caller in
            APIResponse.json(try audiences.audience(appID: caller.appID, id: request.parameter("id")).json)
        }
        routes.secret(.PUT, "/v1/audiences/:id", scope: .placements, Self.putAudience) { request, caller in
            let (audience, created) = try audiences.put(
                appID: caller.appID, id: request.parameter("id"), body: try request.jsonBody())
            return APIResponse.json(audience.json, status: created ? .created : .ok)
        }
        routes.secret(.DELETE, "/v1/audiences/:id", scope: .placements, Self.deleteAudience) { request, caller in
            try audiences.delete(appID: caller.appID, id: request.parameter("id"))
            return HTTPResponse(status: .noContent)
        }
    }
}
