import HTTP
import PaywallFormat
import XizorDomain

/// Subscribers: the SDK sets a subscriber's attributes (public key); the dashboard reads them and
/// deletes a subscriber with everything stored of it (secret key).
struct SubscriberRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        let subscribers = services.subscribers
        let id = APIParameter.path("id", "The subscriber id the app passes as subscriberId (1 to 200 bytes).")
        routes.publicKey(
            .PUT, "/v1/sdk/subscribers/:id/attributes",
            OperationDoc(
                "setSubscriberAttributes",
                summary: "Replace a subscriber's attributes (rules read them as subscriber.KEY)",
                description:
                    "At most \(SubscriberService.maxAttributes) attributes; keys \(SubscriberService.keyRule); values strings (at most \(SubscriberService.maxStringBytes) bytes), numbers or booleans. Durable when answered; the next paywall request sees them.",
                tag: "sdk", parameters: [id], requestBody: APISchemas.ref("SetSubscriberAttributesRequest"),
                responses: [
                    .json(200, "The stored attributes.", APISchemas.ref("SubscriberAttributes")),
                    .problem(422, "Attributes out of bounds (each error with its path), or `invalid_subscriber_id`."),
                ])
        ) { request, caller in
            APIResponse.json(
                try subscribers.setAttributes(
                    appID: caller.appID, subscriberID: request.parameter("id"), body: try request.jsonBody()))
        }
        routes.secret(
            .GET, "/v1/subscribers/:id/attributes", scope: .analytics,
            OperationDoc(
                "getSubscriberAttributes", summary: "Read a subscriber's attributes", tag: "subscribers",
                parameters: [id],
                responses: [
                    .json(200, "The stored attributes (empty when none).", APISchemas.ref("SubscriberAttributes")),
                    .problem(422, "`invalid_subscriber_id`: longer than 200 bytes."),
                ])
        ) { request, caller in
            APIResponse.json(try subscribers.attributes(appID: caller.appID, subscriberID: request.parameter("id")))
        }
        routes.secret(
            .DELETE, "/v1/subscribers/:id/attributes", scope: .analytics,
            OperationDoc(
                "deleteSubscriberAttributes", summary: "Delete a subscriber's attributes (its timers and events stay)",
                tag: "subscribers",
                parameters: [id],
                responses: [
                    .empty(204, "Deleted."), .problem(404, "`attributes_not_found`: none were stored."),
                    .problem(422, "`invalid_subscriber_id`: longer than 200 bytes."),
                ])
        ) { request, caller in
            try subscribers.deleteAttributes(appID: caller.appID, subscriberID: request.parameter("id"))
            return HTTPResponse(status: .noContent)
        }
        routes.secret(
            .DELETE, "/v1/subscribers/:id", scope: .analytics,
            OperationDoc(
                "deleteSubscriber", summary: "Delete everything stored of a subscriber (attributes, timers, events)",
                description:
                    "A data-subject deletion in one call and one transaction. Analytics and experiment results recount without the events.",
                tag: "subscribers", parameters: [id],
                responses: [
                    .json(200, "What was deleted.", APISchemas.ref("SubscriberDeletion")),
                    .problem(422, "`invalid_subscriber_id`: longer than 200 bytes."),
                ])
        ) { request, caller in
            APIResponse.json(try subscribers.delete(appID: caller.appID, subscriberID: request.parameter("id")))
        }
    }
}
