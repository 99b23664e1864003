import HTTP
import PaywallFormat

/// Apps (admin token: list, create, archive) and the app's keys (secret key).
struct AppRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        routes.admin(.POST, "/v1/apps", OperationDoc(
            "createApp", summary: "Create an app and its two keys", tag: "apps",
            requestBody: APISchemas.ref("CreateAppRequest"),
            responses: [.json(201, "The app with its secret and public key, shown this once.", APISchemas.ref("CreatedApp"))])) { request, _ in
            let body = try request.jsonBody()
            guard let name = try body.optionalString("name", path: "$") else {
                throw ServiceError.badField("$.name", "missing_required_field", "An app needs a 'name'.")
            }
            let created = try services.keys.createApp(name: name)
            return APIResponse.json(created.json, status: .created)
        }
        routes.admin(.GET, "/v1/apps", OperationDoc(
            "listApps", summary: "List every app, archived ones included, a page at a time in creation order", tag: "apps",
            parameters: PageSize.parameters,
            responses: [.json(200, "A page of apps (never their keys).", APISchemas.ref("AppList")),
                        .problem(400, "`limit` or `cursor` is malformed.")])) { request, _ in
            let page = try services.keys.listApps(cursor: request.query("cursor"), limit: try PageSize.from(request))
            return APIResponse.json(["apps": .array(page.items.map(\.json)), "nextCursor": page.nextCursor.map { .string($0) } ?? .null])
        }
        routes.admin(.DELETE, "/v1/apps/:appId", OperationDoc(
            "archiveApp", summary: "Archive an app", description: "Its keys stop working before this answers; its data is kept.",
            tag: "apps", parameters: [.path("appId", "An app id.")],
            responses: [.empty(204, "Archived.")])) { request, _ in
            try services.keys.archiveApp(appID: request.parameter("appId"))
            return HTTPResponse(status: .noContent)
        }
        routes.secret(.GET, "/v1/keys", scope: .keys, OperationDoc(
            "listKeys", summary: "List the app's keys (prefixes only), a page at a time in creation order", tag: "apps",
            parameters: PageSize.parameters,
            responses: [.json(200, "A page of the app's keys, revoked ones with `revokedAt`.", APISchemas.ref("APIKeyList")),
                        .problem(400, "`limit` or `cursor` is malformed.")])) { request, caller in
            let page = try services.keys.listKeys(appID: caller.appID, cursor: request.query("cursor"), limit: try PageSize.from(request))
            return APIResponse.json(["keys": .array(page.items.map(\.json)), "nextCursor": page.nextCursor.map { .string($0) } ?? .null])
        }
        routes.secret(.POST, "/v1/keys", scope: .keys, OperationDoc(
            "createKey", summary: "Create a secret or public key", tag: "apps",
            requestBody: APISchemas.ref("CreateKeyRequest"),
            responses: [.json(201, "The new key, shown this once.", APISchemas.ref("CreatedAPIKey")),
                        .problem(409, "The app already has `keys.maxPerApp` live keys.")])) { request, caller in
            let (info, key) = try services.keys.createKey(appID: caller.appID, .parse(try request.jsonBody()), creator: caller.scopes)
            guard case .object(var object) = info.json else { return APIResponse.json(info.json, status: .created) }
            object["key"] = .string(key)
            return APIResponse.json(.object(object), status: .created)
        }
        routes.secret(.DELETE, "/v1/keys/:keyId", scope: .keys, OperationDoc(
            "revokeKey", summary: "Revoke a key", description: "Effective on the next request.", tag: "apps",
            responses: [.empty(204, "Revoked.")])) { request, caller in
            let appID = caller.appID
            try services.keys.revokeKey(appID: appID, keyID: request.parameter("keyId"))
            return HTTPResponse(status: .noContent)
        }
    }
}
