import HTTP
import PaywallFormat
import XizorDomain

/// A person's second factor (docs/teams.md, "Second factor").
struct TwoFactorRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        let services = services
        routes.session(.POST, "/v1/me/totp", Self.beginTOTP) { _, session in
            let enrolment = try services.twoFactor.begin(session)
            var response = APIResponse.json(
                [
                    "secret": .string(enrolment.secret), "uri": .string(enrolment.uri),
                    "qrSvg": .string(enrolment.qrSVG),
                ],
                status: .created)
            response.headers["Cache-Control"] = "no-store"
            return response
        }
        routes.session(.POST, "/v1/me/totp/confirm", Self.confirmTOTP) { request, session in
            guard let token = SessionAdmission.token(in: request) else { throw SessionService.invalidSession }
            let (signedIn, codes) = try services.twoFactor.confirm(
                session, try request.jsonBody(), token: token, address: RateLimits.host(of: request.remoteAddress),
                userAgent: request.header("User-Agent"))
            return try SessionRoutes.signedIn(
                signedIn, services: services, adding: ["recoveryCodes": .array(codes.map(JSONValue.string))])
        }
        routes.session(.DELETE, "/v1/me/totp", Self.disableTOTP) { request, session in
            try services.twoFactor.disable(session, try request.jsonBody())
            return HTTPResponse(status: .noContent)
        }
    }
}
