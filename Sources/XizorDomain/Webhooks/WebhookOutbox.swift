import PaywallFormat

/// Writes events into the outbox, inside the transaction of the change they announce.
enum WebhookOutbox {
    /// One delivery per enabled endpoint of the app subscribed to `type` (or only to `endpoint`,
    /// for a test event); nothing when none is. Answers the deliveries' ids.
    @discardableResult
    static func enqueue(
        type: WebhookEventType, appID: String, data: JSONValue, actor: WriteActor, now: Int64,
        in tx: any StoreTransaction, only endpoint: WebhookEndpoint? = nil
    ) throws -> [String] {
        let targets =
            try endpoint.map { [$0] }
            ?? tx.webhooks.endpoints(appID: appID).filter { $0.enabled && $0.eventTypes.includes(type) }
        guard !targets.isEmpty else { return [] }
        let eventID = Identifiers.eventID()
        let payload: JSONValue = [
            "id": .string(eventID), "type": .string(type.rawValue), "createdAt": .number(Int(now)),
            "appId": .string(appID),
            "data": data, "actor": actor.json, "requestId": actor.requestID.map(JSONValue.string) ?? .null,
        ]
        let body = payload.canonicalString
        var ids: [String] = []
        for target in targets {
            let id = Identifiers.deliveryID()
            try tx.webhooks.insertDelivery(
                id: id, eventID: eventID, endpointID: target.id, appID: appID, eventType: type.rawValue,
                payload: body, createdAt: now)
            ids.append(id)
        }
        return ids
    }
}
