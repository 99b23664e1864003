import HTTP
import PaywallFormat
import XizorDomain

/// An app's invitations (scope `members`: owners) and their acceptance (docs/teams.md, "Invitations").
struct InvitationRoutes {
    let services: XizorServices
    let limits: RateLimits

    func register(in routes: inout APIRoutes) {
        let services = services
        let limits = limits
        routes.secret(.POST, "/v1/invitations", scope: .members, Self.createInvitation) { request, caller in
            let created = try services.invitations.create(appID: caller.appID, try request.jsonBody())
            guard case .object(var body) = created.invitation.json(at: created.invitation.createdAt) else {
                throw ServiceError(.internalError, "invitation_shape", "An invitation is not an object.")
            }
            body["token"] = .string(created.token)
            body["link"] = created.link.map(JSONValue.string) ?? .null
            body["mail"] = .string(created.mail)
            return APIResponse.json(.object(body), status: .created)
        }
        routes.secret(.GET, "/v1/invitations", scope: .members, Self.listInvitations) { _, caller in
            let (invitations, now) = try services.invitations.list(appID: caller.appID)
            return APIResponse.json(["invitations": .array(invitations.map { $0.json(at: now) })])
        }
        routes.secret(.DELETE, "/v1/invitations/:invitationId", scope: .members, Self.revokeInvitation) {
            request, caller in
            try services.invitations.revoke(appID: caller.appID, id: request.parameter("invitationId"))
            return HTTPResponse(status: .noContent)
        }
        // Open: the link's token is the proof, with the account's password (or a session of the
        // invited address, whose change then needs its CSRF token as any other).
        routes.open(.POST, "/v1/invitations/accept", Self.acceptInvitation) { request in
            try limits.admitUnverified(request)
            let cookie = SessionAdmission.token(in: request)
            var signedIn: SessionService.Verified?
            if let cookie {
                // A cookie of an ended session is no session: the link's own proof is asked for.
                do { signedIn = try services.sessions.verify(token: cookie) } catch let error as ServiceError
                    where error == SessionService.invalidSession
                {
                    signedIn = nil
                }
                if signedIn != nil { try SessionAdmission.checkCSRF(request, token: cookie) }
            }
            let opened: SessionService.SignedIn
            do {
                opened = try SessionAdmission.anonymous(request) {
                    try services.invitations.accept(
                        try request.jsonBody(), signedIn: signedIn, address: RateLimits.host(of: request.remoteAddress),
                        userAgent: request.header("User-Agent"), presentedToken: cookie)
                }
            } catch let error as ServiceError
                where ["invalid_credentials", "invitation_not_found"].contains(error.code)
            {
                try limits.failedAuthentication(request)
                throw error
            }
            return try SessionRoutes.signedIn(opened, services: services)
        }
    }
}
