import HTTP
import PaywallFormat
import XizorDomain
import XizorLog

/// Verified revenue (docs/revenue.md): the stores' notification endpoints (no key: Apple's are
/// signed, RevenueCat's carry the configured Authorization), the app's settings (scope `webhooks`)
/// and its revenue report (scope `analytics`).
struct RevenueRoutes {
    let services: XizorServices
    let logger: Logger?
    /// `server.publicURL`, for the URLs the settings answer; else the request's own host.
    let publicOrigin: String?

    /// A notification body's bound: Apple's are a few KiB, RevenueCat's under 10.
    static let maxNotificationBytes = 65_536

    func register(in routes: inout APIRoutes) {
        let revenue = services.revenue
        routes.store(.POST, "/v1/apps/:appId/notifications/apple", Self.receiveAppleNotification) {
            [logger] request, failed in
            try Self.receive(request, source: .apple, logger: logger, failed: failed) { appID in
                try revenue.receiveApple(appID: appID, body: request.body)
            }
        }
        routes.store(.POST, "/v1/apps/:appId/notifications/revenuecat", Self.receiveRevenueCatWebhook) {
            [logger] request, failed in
            try Self.receive(request, source: .revenuecat, logger: logger, failed: failed) { appID in
                try revenue.receiveRevenueCat(
                    appID: appID, authorization: request.header("authorization"), body: request.body)
            }
        }
        routes.secret(.GET, "/v1/revenue/settings", scope: .webhooks, Self.getRevenueSettings) {
            [publicOrigin] request, caller in
            APIResponse.json(
                try revenue.settings(appID: caller.appID).json(
                    appID: caller.appID, base: Self.base(request, publicOrigin)))
        }
        routes.secret(.PATCH, "/v1/revenue/settings", scope: .webhooks, Self.updateRevenueSettings) {
            [publicOrigin] request, caller in
            APIResponse.json(
                try revenue.updateSettings(appID: caller.appID, patch: try request.jsonBody()).json(
                    appID: caller.appID, base: Self.base(request, publicOrigin)))
        }
        routes.secret(.GET, "/v1/revenue", scope: .analytics, Self.getRevenue) { request, caller in
            APIResponse.json(
                try revenue.report(
                    appID: caller.appID, environment: try EnvironmentFilter.parse(request.query("environment")),
                    from: try EventRoutes.time(request.query("from"), name: "from"),
                    to: try EventRoutes.time(request.query("to"), name: "to")))
        }
    }

    /// A store's POST: bounded, counted against the caller's address like a failed key when refused
    /// (each refusal cost a signature check), answered 200 only after the ledger committed.
    private static func receive(
        _ request: HTTPRequest, source: StoreSource, logger: Logger?, failed: () throws -> Void,
        _ body: (String) throws -> (RevenueService.Outcome, String)
    ) throws -> HTTPResponse {
        guard request.body.count <= maxNotificationBytes else {
            throw ServiceError(
                .contentTooLarge, "notification_too_large",
                "A store notification is at most \(maxNotificationBytes) bytes.")
        }
        let appID = request.parameter("appId")
        do {
            let (outcome, id) = try body(appID)
            return APIResponse.json(["status": .string(outcome.rawValue), "id": .string(id)])
        } catch let error as ServiceError where error.kind == .unauthorized {
            logger?.warning(
                "store notification refused",
                [
                    ("source", .string(source.rawValue)), ("app", .string(appID)),
                    ("reason", .string(error.members["reason"]?.stringValue ?? error.code)),
                ])
            try failed()
            throw error
        }
    }

    private static func base(_ request: HTTPRequest, _ publicOrigin: String?) -> String {
        if let publicOrigin { return publicOrigin }
        return "http://" + (request.header("host") ?? "localhost")
    }
}
