import HTTP
import PaywallFormat

/// `POST /v1/apps` (admin token) and the app's keys (secret key).
struct AppRoutes {
    let services: XizorServices
    let auth: Authenticator

    func register(in router: inout Router) {
        router.post("/v1/apps") { request in
            try auth.requireAdmin(request)
            let body = try request.jsonBody()
            guard let name = try body.optionalString("name", path: "$") else {
                throw ServiceError.badField("$.name", "missing_required_field", "An app needs a 'name'.")
            }
            let created = try services.keys.createApp(name: name)
            return APIResponse.json(created.json, status: .created)
        }
        router.delete("/v1/apps/:appId") { request in
            try auth.requireAdmin(request)
            try services.keys.archiveApp(appID: request.parameter("appId"))
            return HTTPResponse(status: .noContent)
        }
        router.get("/v1/keys") { request in
            let appID = try auth.secretApp(request)
            return APIResponse.json(["keys": .array(try services.keys.listKeys(appID: appID).map(\.json))])
        }
        router.post("/v1/keys") { request in
            let appID = try auth.secretApp(request)
            let body = try request.jsonBody()
            let (info, key) = try services.keys.createKey(appID: appID, kind: try body.optionalString("kind", path: "$") ?? "")
            guard case .object(var object) = info.json else { return APIResponse.json(info.json, status: .created) }
            object["key"] = .string(key)
            return APIResponse.json(.object(object), status: .created)
        }
        router.delete("/v1/keys/:keyId") { request in
            let appID = try auth.secretApp(request)
            try services.keys.revokeKey(appID: appID, keyID: request.parameter("keyId"))
            return HTTPResponse(status: .noContent)
        }
    }
}
