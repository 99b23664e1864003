import HTTP
import PaywallFormat
import XizorDomain

/// Duration timers (public key): the persisted start of a countdown, first write wins.
struct TimerRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        routes.publicKey(.POST, "/v1/sdk/timers", Self.startTimer) { request, caller in
            let appID = caller.appID
            let (startedAt, created) = try services.timers.start(appID: appID, body: try request.jsonBody())
            return APIResponse.json(
                ["startedAt": .number(Int(startedAt)), "created": .bool(created)], status: created ? .created : .ok)
        }
    }
}
