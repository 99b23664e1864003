import HTTP
import PaywallFormat
import XizorDomain

/// Apps (admin token: list, create, archive) and the app's keys (secret key).
struct AppRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        routes.admin(.POST, "/v1/apps", Self.createApp) { request, caller in
            let body = try request.jsonBody()
            guard let name = try body.optionalString("name", path: "$") else {
                throw ServiceError.badField("$.name", "missing_required_field", "An app needs a 'name'.")
            }
            let created = try services.keys.createApp(name: name)
            // An instance admin who creates an app as a person owns it (and lists it among their apps).
            if let user = caller.user {
                _ = try services.users.setRole(appID: created.appID, userID: user.userID, ["role": "owner"])
            }
            return APIResponse.json(created.json, status: .created)
        }
        routes.admin(.GET, "/v1/apps", Self.listApps) { request, _ in
            let page = try services.keys.listApps(cursor: request.query("cursor"), limit: try PageSize.from(request))
            return APIResponse.json([
                "apps": .array(page.items.map(\.json)), "nextCursor": page.nextCursor.map { .string($0) } ?? .null,
            ])
        }
        routes.admin(.DELETE, "/v1/apps/:appId", Self.archiveApp) { request, _ in
            try services.keys.archiveApp(appID: request.parameter("appId"))
            return HTTPResponse(status: .noContent)
        }
        routes.admin(.PATCH, "/v1/apps/:appId", Self.updateApp) { request, _ in
            let body = try request.jsonBody()
            guard case .object(let members) = body, let value = members["eventRetentionDays"] else {
                throw ServiceError.badField(
                    "$.eventRetentionDays", "missing_required_field",
                    "Send {\"eventRetentionDays\": days} (null: the server's events.retentionDays).")
            }
            var days: Int?
            if value != .null {
                guard let number = value.intValue else {
                    throw ServiceError.badField(
                        "$.eventRetentionDays", "type_mismatch", "eventRetentionDays is a whole number of days or null."
                    )
                }
                days = number
            }
            let app = try services.keys.setEventRetention(appID: request.parameter("appId"), days: days)
            return APIResponse.json(app.json)
        }
        routes.admin(.POST, "/v1/apps/:appId/keys", Self.mintRecoveryKey) { request, _ in
            let body = try request.jsonBody(allowEmpty: true)
            guard case .object = body else {
                throw ServiceError.badField("$", "type_mismatch", "The body is a JSON object (or empty).")
            }
            let (info, key) = try services.keys.mintRecoveryKey(
                appID: request.parameter("appId"), label: try body.optionalString("label", path: "$"))
            return APIResponse.json(info.created(key: key), status: .created)
        }
        routes.secret(.GET, "/v1/keys", scope: .keys, Self.listKeys) { request, caller in
            let page = try services.keys.listKeys(
                appID: caller.appID, cursor: request.query("cursor"), limit: try PageSize.from(request))
            return APIResponse.json([
                "keys": .array(page.items.map(\.json)), "nextCursor": page.nextCursor.map { .string($0) } ?? .null,
            ])
        }
        routes.secret(.POST, "/v1/keys", scope: .keys, Self.createKey) { request, caller in
            let (info, key) = try services.keys.createKey(
                appID: caller.appID, .parse(try request.jsonBody()), creator: caller.scopes)
            return APIResponse.json(info.created(key: key), status: .created)
        }
        routes.secret(.DELETE, "/v1/keys/:keyId", scope: .keys, Self.revokeKey) { request, caller in
            try services.keys.revokeKey(appID: caller.appID, keyID: request.parameter("keyId"), revoker: caller.scopes)
            return HTTPResponse(status: .noContent)
        }
    }
}
