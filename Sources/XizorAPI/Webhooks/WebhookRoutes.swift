import HTTP
import PaywallFormat
import XizorDomain

/// Webhook endpoints, their delivery log, test events and retries (scope `webhooks`).
struct WebhookRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        let webhooks = services.webhooks
        routes.secret(.GET, "/v1/webhooks", scope: .webhooks, Self.listWebhooks) { _, caller in
            APIResponse.json(["items": .array(try webhooks.list(appID: caller.appID).map(\.json))])
        }
        routes.secret(.POST, "/v1/webhooks", scope: .webhooks, Self.createWebhook) { request, caller in
            let endpoint = try webhooks.create(appID: caller.appID, body: try request.jsonBody())
            return APIResponse.json(Self.withSecret(endpoint), status: .created)
        }
        routes.secret(.GET, "/v1/webhooks/:id", scope: .webhooks, Self.getWebhook) { request, caller in
            APIResponse.json(try webhooks.endpoint(appID: caller.appID, id: request.parameter("id")).json)
        }
        routes.secret(.PATCH, "/v1/webhooks/:id", scope: .webhooks, Self.updateWebhook) { request, caller in
            APIResponse.json(
                try webhooks.update(appID: caller.appID, id: request.parameter("id"), body: try request.jsonBody()).json
            )
        }
        routes.secret(.DELETE, "/v1/webhooks/:id", scope: .webhooks, Self.deleteWebhook) { request, caller in
            try webhooks.delete(appID: caller.appID, id: request.parameter("id"))
            return HTTPResponse(status: .noContent)
        }
        routes.secret(.POST, "/v1/webhooks/:id/rotate-secret", scope: .webhooks, Self.rotateWebhookSecret) {
            request, caller in
            APIResponse.json(
                Self.withSecret(try webhooks.rotateSecret(appID: caller.appID, id: request.parameter("id"))))
        }
        routes.secret(.GET, "/v1/webhooks/:id/deliveries", scope: .webhooks, Self.listWebhookDeliveries) {
            request, caller in
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
        routes.secret(.POST, "/v1/webhooks/:id/test", scope: .webhooks, Self.testWebhook) { request, caller in
            APIResponse.json(
                try webhooks.sendTest(appID: caller.appID, id: request.parameter("id")).json, status: .accepted)
        }
        routes.secret(
            .POST, "/v1/webhooks/:id/deliveries/:deliveryId/retry", scope: .webhooks, Self.retryWebhookDelivery
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
