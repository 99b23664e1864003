import HTTP
import PaywallFormat
import XizorDomain

/// Accounts (instance admins: the admin token, or a person with the flag) and an app's members
/// (docs/teams.md, "Roles").
struct UserRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        let services = services
        routes.admin(.POST, "/v1/users", Self.createUser) { request, _ in
            APIResponse.json(try services.users.create(try request.jsonBody()).json, status: .created)
        }
        routes.admin(.GET, "/v1/users", Self.listUsers) { request, _ in
            let limit = try PageSize.from(request)
            let users = try services.users.list(after: request.query("cursor"), limit: limit)
            return APIResponse.json([
                "users": .array(users.map(\.json)),
                "nextCursor": users.count == limit ? users.last.map { .string($0.id) } ?? .null : .null,
            ])
        }
        routes.admin(.PATCH, "/v1/users/:userId", Self.updateUser) { request, _ in
            APIResponse.json(try services.users.update(id: request.parameter("userId"), try request.jsonBody()).json)
        }
        routes.admin(.PUT, "/v1/apps/:appId/members/:userId", Self.setAppMember) { request, _ in
            let member = try services.users.setRole(
                appID: request.parameter("appId"), userID: request.parameter("userId"), try request.jsonBody())
            return APIResponse.json(member.memberJSON)
        }
        routes.secret(.GET, "/v1/members", scope: .read, Self.listMembers) { _, caller in
            APIResponse.json(["members": .array(try services.users.members(appID: caller.appID).map(\.memberJSON))])
        }
        routes.secret(.PUT, "/v1/members/:userId", scope: .members, Self.setMember) { request, caller in
            let member = try services.users.setRole(
                appID: caller.appID, userID: request.parameter("userId"), try request.jsonBody(), adding: false)
            return APIResponse.json(member.memberJSON)
        }
        routes.secret(.DELETE, "/v1/members/:userId", scope: .members, Self.removeMember) { request, caller in
            try services.users.removeMember(appID: caller.appID, userID: request.parameter("userId"))
            return HTTPResponse(status: .noContent)
        }
    }
}
