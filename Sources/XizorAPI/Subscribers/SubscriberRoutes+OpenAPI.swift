import HTTP
import PaywallFormat
import XizorDomain

/// The OpenAPI description of each operation `SubscriberRoutes` registers, one table beside the routes so
/// their `register` reads as what each route does; `APIRoutes` puts both together when a route is
/// declared, so neither can be registered without the other.
extension SubscriberRoutes {
    /// The `{id}` path parameter the operations share.
    static let idParameter = APIParameter.path(
        "id", "The subscriber id the app passes as subscriberId (1 to 200 bytes).")

    static let setSubscriberAttributes = OperationDoc(
        "setSubscriberAttributes",
        summary: "Replace a subscriber's attributes (rules read them as subscriber.KEY)",
        description:
            "At most \(SubscriberService.maxAttributes) attributes; keys \(SubscriberService.keyRule); values strings (at most \(SubscriberService.maxStringBytes) bytes), numbers or booleans. Durable when answered; the next paywall request sees them.",
        tag: "sdk", parameters: [idParameter], requestBody: APISchemas.ref("SetSubscriberAttributesRequest"),
        responses: [
            .json(200, "The stored attributes.", APISchemas.ref("SubscriberAttributes")),
            .problem(422, "Attributes out of bounds (each error with its path), or `invalid_subscriber_id`."),
        ])

    static let getSubscriberAttributes = OperationDoc(
        "getSubscriberAttributes", summary: "Read a subscriber's attributes", tag: "subscribers",
        parameters: [idParameter],
        responses: [
            .json(200, "The stored attributes (empty when none).", APISchemas.ref("SubscriberAttributes")),
            .problem(422, "`invalid_subscriber_id`: longer than 200 bytes."),
        ])

    static let deleteSubscriberAttributes = OperationDoc(
        "deleteSubscriberAttributes", summary: "Delete a subscriber's attributes (its timers and events stay)",
        tag: "subscribers",
        parameters: [idParameter],
        responses: [
            .empty(204, "Deleted."), .problem(404, "`attributes_not_found`: none were stored."),
            .problem(422, "`invalid_subscriber_id`: longer than 200 bytes."),
        ])

    static let deleteSubscriber = OperationDoc(
        "deleteSubscriber", summary: "Delete everything stored of a subscriber (attributes, timers, events)",
        description:
            "A data-subject deletion in one call and one transaction. Analytics and experiment results recount without the events.",
        tag: "subscribers", parameters: [idParameter],
        responses: [
            .json(200, "What was deleted.", APISchemas.ref("SubscriberDeletion")),
            .problem(422, "`invalid_subscriber_id`: longer than 200 bytes."),
        ])
}
