import HTTP
import PaywallFormat
import XizorDomain

/// Apps (admin token: list, create, archive) and the app's keys (secret key).
struct AppRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        routes.admin(
            .POST, "/v1/apps",
            OperationDoc(
                "createApp", summary: "Create an app and its two keys", tag: "apps",
                requestBody: APISchemas.ref("CreateAppRequest"),
                responses: [
                    .json(201, "The app with its secret and public key, shown this once.", APISchemas.ref("CreatedApp"))
                ])
        ) { request, _ in
            let body = try request.jsonBody()
            guard let name = try body.optionalString("name", path: "$") else {
                throw ServiceError.badField("$.name", "missing_required_field", "An app needs a 'name'.")
            }
            let created = try services.keys.createApp(name: name)
            return APIResponse.json(created.json, status: .created)
        }
        routes.admin(
            .GET, "/v1/apps",
            OperationDoc(
                "listApps", summary: "List every app, archived ones included, a page at a time in creation order",
                tag: "apps",
                parameters: PageSize.parameters,
                responses: [
                    .json(200, "A page of apps (never their keys).", APISchemas.ref("AppList")),
                    .problem(400, "`limit` or `cursor` is malformed."),
                ])
        ) { request, _ in
            let page = try services.keys.listApps(cursor: request.query("cursor"), limit: try PageSize.from(request))
            return APIResponse.json([
                "apps": .array(page.items.map(\.json)), "nextCursor": page.nextCursor.map { .string($0) } ?? .null,
            ])
        }
        routes.admin(
            .DELETE, "/v1/apps/:appId",
            OperationDoc(
                "archiveApp", summary: "Archive an app",
                description: "Its keys stop working before this answers; its data is kept.",
                tag: "apps", parameters: [.path("appId", "An app id.")],
                responses: [.empty(204, "Archived.")])
        ) { request, _ in
            try services.keys.archiveApp(appID: request.parameter("appId"))
            return HTTPResponse(status: .noContent)
        }
        routes.admin(
            .POST, "/v1/apps/:appId/keys",
            OperationDoc(
                "mintRecoveryKey", summary: "Mint a full-access secret key for an app (recovery)",
                description:
                    "For an owner left without a full-access key. Works whatever keys the app has (none, or `keys.maxPerApp` already: the operator's recovery is not capped). Recorded as `key.created` with the admin as actor. `xizor keys create APP_ID` does the same.",
                tag: "apps", parameters: [.path("appId", "An app id.")],
                requestBody: APISchemas.ref("RecoveryKeyRequest"),
                responses: [
                    .json(201, "The new key, shown this once.", APISchemas.ref("CreatedAPIKey")),
                    .problem(404, "`app_not_found`: no such app."),
                    .problem(409, "`app_archived`: the app is archived (its keys cannot authenticate)."),
                    .problem(422, "`label` is invalid."),
                ])
        ) { request, _ in
            let body = try request.jsonBody(allowEmpty: true)
            guard case .object = body else {
                throw ServiceError.badField("$", "type_mismatch", "The body is a JSON object (or empty).")
            }
            let (info, key) = try services.keys.mintRecoveryKey(
                appID: request.parameter("appId"), label: try body.optionalString("label", path: "$"))
            return APIResponse.json(info.created(key: key), status: .created)
        }
        routes.secret(
            .GET, "/v1/keys", scope: .keys,
            OperationDoc(
                "listKeys", summary: "List the app's keys (prefixes only), a page at a time in creation order",
                tag: "apps",
                parameters: PageSize.parameters,
                responses: [
                    .json(
                        200, "A page of the app's keys, revoked ones with `revokedAt`.", APISchemas.ref("APIKeyList")),
                    .problem(400, "`limit` or `cursor` is malformed."),
                ])
        ) { request, caller in
            let page = try services.keys.listKeys(
                appID: caller.appID, cursor: request.query("cursor"), limit: try PageSize.from(request))
            return APIResponse.json([
                "keys": .array(page.items.map(\.json)), "nextCursor": page.nextCursor.map { .string($0) } ?? .null,
            ])
        }
        routes.secret(
            .POST, "/v1/keys", scope: .keys,
            OperationDoc(
                "createKey", summary: "Create a secret or public key", tag: "apps",
                requestBody: APISchemas.ref("CreateKeyRequest"),
                responses: [
                    .json(201, "The new key, shown this once.", APISchemas.ref("CreatedAPIKey")),
                    .problem(409, "The app already has `keys.maxPerApp` live keys."),
                ])
        ) { request, caller in
            let (info, key) = try services.keys.createKey(
                appID: caller.appID, .parse(try request.jsonBody()), creator: caller.scopes)
            return APIResponse.json(info.created(key: key), status: .created)
        }
        routes.secret(
            .DELETE, "/v1/keys/:keyId", scope: .keys,
            OperationDoc(
                "revokeKey", summary: "Revoke a key",
                description:
                    "Effective on the next request. A key without full access cannot revoke the app's last full-access secret key (the owner would be locked out).",
                tag: "apps",
                responses: [
                    .empty(204, "Revoked."),
                    .problem(
                        409,
                        "`last_full_access_key`: the key to revoke is the app's last full-access secret key and the caller's key is scoped."
                    ),
                ])
        ) { request, caller in
            try services.keys.revokeKey(appID: caller.appID, keyID: request.parameter("keyId"), revoker: caller.scopes)
            return HTTPResponse(status: .noContent)
        }
    }
}
