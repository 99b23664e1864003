import HTTP
import PaywallFormat
import XizorDomain

/// Subscribers: the SDK sets a subscriber's attributes (public key); the dashboard reads them and
/// deletes a subscriber with everything stored of it (secret key).
struct SubscriberRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        let subscribers = services.subscribers
        routes.publicKey(.PUT, "/v1/sdk/subscribers/:id/attributes", Self.setSubscriberAttributes) { request, caller in
            APIResponse.json(
                try subscribers.setAttributes(
                    appID: caller.appID, subscriberID: request.parameter("id"), body: try request.jsonBody()))
        }
        routes.secret(.GET, "/v1/subscribers/:id/attributes", scope: .analytics, Self.getSubscriberAttributes) {
            request, caller in
            APIResponse.json(try subscribers.attributes(appID: caller.appID, subscriberID: request.parameter("id")))
        }
        routes.secret(.DELETE, "/v1/subscribers/:id/attributes", scope: .analytics, Self.deleteSubscriberAttributes) {
            request, caller in
            try subscribers.deleteAttributes(appID: caller.appID, subscriberID: request.parameter("id"))
            return HTTPResponse(status: .noContent)
        }
        routes.secret(.DELETE, "/v1/subscribers/:id", scope: .analytics, Self.deleteSubscriber) { request, caller in
            APIResponse.json(try subscribers.delete(appID: caller.appID, subscriberID: request.parameter("id")))
        }
    }
}
