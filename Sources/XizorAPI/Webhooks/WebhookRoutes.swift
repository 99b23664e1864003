import HTTP
import PaywallFormat
import XizorDomain

/// Webhook endpoints, their delivery log, test events and retries (scope `webhooks`).
struct WebhookRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        let webhooks = services.webhooks
        let id = APIParameter.path("id", "A webhook endpoint id (`we_…`).")
        routes.secret(
            .GET, "/v1/webhooks", scope: .webhooks,
            OperationDoc(
                "listWebhooks", summary: "List the app's webhook endpoints (never their secrets)", tag: "webhooks",
                responses: [.json(200, "Every endpoint, oldest first.", APISchemas.ref("WebhookEndpointList"))])
        ) { _, caller in
            APIResponse.json(["items": .array(try webhooks.list(appID: caller.appID).map(\.json))])
        }
        routes.secret(
            .POST, "/v1/webhooks", scope: .webhooks,
            OperationDoc(
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
        ) { request, caller in
            let endpoint = try webhooks.create(appID: caller.appID, body: try request.jsonBody())
            return APIResponse.json(Self.withSecret(endpoint), status: .created)
        }
        routes.secret(
            .GET, "/v1/webhooks/:id", scope: .webhooks,
            OperationDoc(
                "getWebhook", summary: "Read a webhook endpoint", tag: "webhooks", parameters: [id],
                responses: [.json(200, "The endpoint.", APISchemas.ref("WebhookEndpoint"))])
        ) { request, caller in
            APIResponse.json(try webhooks.endpoint(appID: caller.appID, id: request.parameter("id")).json)
        }
        routes.secret(
            .PATCH, "/v1/webhooks/:id", scope: .webhooks,
            OperationDoc(
                "updateWebhook", summary: "Change a webhook endpoint's URL, event types, description or enabled flag",
                description:
                    "The URL is checked and made canonical as when created. Enabling an endpoint the server disabled because it kept failing starts it healthy again.",
                tag: "webhooks", parameters: [id], requestBody: APISchemas.ref("UpdateWebhookRequest"),
                responses: [
                    .json(200, "The endpoint.", APISchemas.ref("WebhookEndpoint")),
                    .problem(
                        422,
                        "`private_webhook_target` at `$.url`: an internal address or `localhost`; `invalid_url`; or another field's error, with its path."
                    ),
                ])
        ) { request, caller in
            APIResponse.json(
                try webhooks.update(appID: caller.appID, id: request.parameter("id"), body: try request.jsonBody()).json
            )
        }
        routes.secret(
            .DELETE, "/v1/webhooks/:id", scope: .webhooks,
            OperationDoc(
                "deleteWebhook", summary: "Delete a webhook endpoint and its delivery log", tag: "webhooks",
                parameters: [id],
                responses: [.empty(204, "Deleted.")])
        ) { request, caller in
            try webhooks.delete(appID: caller.appID, id: request.parameter("id"))
            return HTTPResponse(status: .noContent)
        }
        routes.secret(
            .POST, "/v1/webhooks/:id/rotate-secret", scope: .webhooks,
            OperationDoc(
                "rotateWebhookSecret", summary: "Give the endpoint a new signing secret",
                description: "The old secret signs nothing from now on.",
                tag: "webhooks", parameters: [id],
                responses: [
                    .json(
                        200, "The endpoint with its new `secret`, shown this once.", APISchemas.ref("WebhookEndpoint"))
                ])
        ) { request, caller in
            APIResponse.json(
                Self.withSecret(try webhooks.rotateSecret(appID: caller.appID, id: request.parameter("id"))))
        }
        routes.secret(
            .GET, "/v1/webhooks/:id/deliveries", scope: .webhooks,
            OperationDoc(
                "listWebhookDeliveries", summary: "The endpoint's delivery log, newest first", tag: "webhooks",
                parameters: [id] + PageSize.parameters + [
                    .query(
                        "state", "Only deliveries in this state.", schema: ["enum": ["pending", "delivered", "failed"]])
                ],
                responses: [
                    .json(200, "A page of deliveries.", APISchemas.ref("WebhookDeliveryList")),
                    .problem(400, "`state`, `limit` or `cursor` is malformed."),
                ])
        ) { request, caller in
            var state: WebhookDeliveryState?
            if let raw = request.query("state") {
                guard let parsed = WebhookDeliveryState(rawValue: raw) else {
                    throw ServiceError(
                        .badRequest, "invalid_state", "'state' is pending, delivered or failed, not '\(raw)'.")
                }
                state = parsed
            }
            let page = try webhooks.deliveries(
                appID: caller.appID, id: request.parameter("id"), state: state,
                cursor: request.query("cursor"), limit: try PageSize.from(request))
            return APIResponse.json([
                "items": .array(page.items.map(\.json)), "nextCursor": page.nextCursor.map { .string($0) } ?? .null,
            ])
        }
        routes.secret(
            .POST, "/v1/webhooks/:id/test", scope: .webhooks,
            OperationDoc(
                "testWebhook", summary: "Send a `webhook.test` event to the endpoint",
                description: "Through the outbox, like every event: signed, retried, logged.",
                tag: "webhooks", parameters: [id],
                responses: [.json(202, "The delivery, pending.", APISchemas.ref("WebhookDelivery"))])
        ) { request, caller in
            APIResponse.json(
                try webhooks.sendTest(appID: caller.appID, id: request.parameter("id")).json, status: .accepted)
        }
        routes.secret(
            .POST, "/v1/webhooks/:id/deliveries/:deliveryId/retry", scope: .webhooks,
            OperationDoc(
                "retryWebhookDelivery", summary: "Send a delivery that gave up again", tag: "webhooks",
                parameters: [id, .path("deliveryId", "A delivery id (`whd_…`).")],
                responses: [
                    .json(202, "The delivery, pending again.", APISchemas.ref("WebhookDelivery")),
                    .problem(409, "`delivery_not_failed`: it is pending or delivered."),
                ])
        ) { request, caller in
            let delivery = try webhooks.retry(
                appID: caller.appID, id: request.parameter("id"), deliveryID: request.parameter("deliveryId"))
            return APIResponse.json(delivery.json, status: .accepted)
        }
    }

    /// The endpoint with its secret: only the answers that create or rotate it.
    private static func withSecret(_ endpoint: WebhookEndpoint) -> JSONValue {
        var json = endpoint.json
        json["secret"] = .string(endpoint.secret)
        return json
    }
}
