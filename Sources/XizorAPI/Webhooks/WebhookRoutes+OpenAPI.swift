import HTTP
import PaywallFormat
import XizorDomain

/// The OpenAPI description of each operation `WebhookRoutes` registers, one table beside the routes so
/// their `register` reads as what each route does; `APIRoutes` puts both together when a route is
/// declared, so neither can be registered without the other.
extension WebhookRoutes {
    /// The `{id}` path parameter the operations share.
    static let idParameter = APIParameter.path("id", "A webhook endpoint id (`we_…`).")

    static let listWebhooks = OperationDoc(
        "listWebhooks", summary: "List the app's webhook endpoints (never their secrets)", tag: "webhooks",
        responses: [.json(200, "Every endpoint, oldest first.", APISchemas.ref("WebhookEndpointList"))])

    static let createWebhook = OperationDoc(
        "createWebhook", summary: "Create a webhook endpoint",
        description:
            "Answers the signing secret this once. The URL is stored canonical (an IPv4 address in any spelling as a dotted quad, IPv6 compressed, the host in lower case). Loopback, private, link-local and other internal addresses, in any spelling, and `localhost` and names under `.localhost` are refused unless `webhooks.allowPrivateTargets`.",
        tag: "webhooks", requestBody: APISchemas.ref("CreateWebhookRequest"),
        responses: [
            .json(201, "The endpoint with its `secret`.", APISchemas.ref("WebhookEndpoint")),
            .problem(
                422,
                "`private_webhook_target` at `$.url`: an internal address or `localhost`; `invalid_url`; or another field's error, with its path."
            ),
            .problem(409, "`webhook_limit_reached`: the app has `webhooks.maxEndpointsPerApp` endpoints."),
        ])

    static let getWebhook = OperationDoc(
        "getWebhook", summary: "Read a webhook endpoint", tag: "webhooks", parameters: [idParameter],
        responses: [.json(200, "The endpoint.", APISchemas.ref("WebhookEndpoint"))])

    static let updateWebhook = OperationDoc(
        "updateWebhook", summary: "Change a webhook endpoint's URL, event types, description or enabled flag",
        description:
            "The URL is checked and made canonical as when created. Enabling an endpoint the server disabled because it kept failing starts it healthy again.",
        tag: "webhooks", parameters: [idParameter], requestBody: APISchemas.ref("UpdateWebhookRequest"),
        responses: [
            .json(200, "The endpoint.", APISchemas.ref("WebhookEndpoint")),
            .problem(
                422,
                "`private_webhook_target` at `$.url`: an internal address or `localhost`; `invalid_url`; or another field's error, with its path."
            ),
        ])

    static let deleteWebhook = OperationDoc(
        "deleteWebhook", summary: "Delete a webhook endpoint and its delivery log", tag: "webhooks",
        parameters: [idParameter],
        responses: [.empty(204, "Deleted.")])

    static let rotateWebhookSecret = OperationDoc(
        "rotateWebhookSecret", summary: "Give the endpoint a new signing secret",
        description: "The old secret signs nothing from now on.",
        tag: "webhooks", parameters: [idParameter],
        responses: [
            .json(
                200, "The endpoint with its new `secret`, shown this once.", APISchemas.ref("WebhookEndpoint"))
        ])

    static let listWebhookDeliveries = OperationDoc(
        "listWebhookDeliveries", summary: "The endpoint's delivery log, newest first", tag: "webhooks",
        parameters: [idParameter] + PageSize.parameters + [
            .query(
                "state", "Only deliveries in this state.", schema: ["enum": ["pending", "delivered", "failed"]])
        ],
        responses: [
            .json(200, "A page of deliveries.", APISchemas.ref("WebhookDeliveryList")),
            .problem(400, "`state`, `limit` or `cursor` is malformed."),
        ])

    static let testWebhook = OperationDoc(
        "testWebhook", summary: "Send a `webhook.test` event to the endpoint",
        description: "Through the outbox, like every event: signed, retried, logged.",
        tag: "webhooks", parameters: [idParameter],
        responses: [.json(202, "The delivery, pending.", APISchemas.ref("WebhookDelivery"))])

    static let retryWebhookDelivery = OperationDoc(
        "retryWebhookDelivery", summary: "Send a delivery that gave up again", tag: "webhooks",
        parameters: [idParameter, .path("deliveryId", "A delivery id (`whd_…`).")],
        responses: [
            .json(202, "The delivery, pending again.", APISchemas.ref("WebhookDelivery")),
            .problem(409, "`delivery_not_failed`: it is pending or delivered."),
        ])
}
