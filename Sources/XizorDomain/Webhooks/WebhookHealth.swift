import PaywallFormat

/// How an endpoint's attempts have gone lately (docs/integrations.md, "Failing endpoints"). Stripe's
/// rule, with our numbers: an endpoint that answers nothing but failures for
/// `webhooks.disableAfterMs` (default 3 days) is disabled by the server, so a dead URL stops taking
/// senders' time for ever; a person enables it again, which starts it healthy.
///
///     healthy ──attempt failed──▶ failing(since) ──attempt failed, failing ≥ disableAfterMs──▶ disabledAfterFailing(since)
///        ▲                          │                                                             │
///        └──────attempt delivered───┘◀──────────────────────── enabled by hand ───────────────────┘
public enum WebhookEndpointHealth: Sendable, Equatable {
    case healthy
    /// Every attempt since `since` (the first failure of the run) failed.
    case failing(since: Int64)
    /// The server disabled it after it failed from `since` on; only `PATCH {"enabled": true}` leaves this.
    case disabledAfterFailing(since: Int64)

    /// The state after an attempt of one of its deliveries ended. `enabled` is the endpoint's flag
    /// when the attempt ended: one a person disabled meanwhile is not disabled again by the server.
    func afterAttempt(delivered: Bool, enabled: Bool, now: Int64, disableAfterMs: Int64) -> WebhookEndpointHealth {
        switch (self, delivered) {
        case (.disabledAfterFailing, _): self  // an attempt leased before it was disabled
        case (_, true): .healthy
        case (.healthy, false): .failing(since: now)
        case (.failing(let since), false):
            enabled && now - since >= disableAfterMs ? .disabledAfterFailing(since: since) : self
        }
    }

    /// What a person enabling the endpoint makes of it: a fresh start.
    var enabledByHand: WebhookEndpointHealth { .healthy }

    /// When the current run of failures began (nil: healthy).
    package var failingSince: Int64? {
        switch self {
        case .healthy: nil
        case .failing(let since), .disabledAfterFailing(let since): since
        }
    }

    /// The stored `disabled_reason`.
    package var disabledReason: String? {
        if case .disabledAfterFailing = self { return "failing" }
        return nil
    }

    /// From the stored columns; a reason this binary does not know is a row it cannot trust.
    package static func stored(failingSince: Int64?, disabledReason: String?) throws -> WebhookEndpointHealth {
        switch (failingSince, disabledReason) {
        case (nil, nil): return .healthy
        case (let since?, nil): return .failing(since: since)
        case (let since?, "failing"): return .disabledAfterFailing(since: since)
        default:
            throw StoreInconsistency(
                detail:
                    "a webhook endpoint has disabled_reason \(disabledReason ?? "NULL") with failing_since \(failingSince.map(String.init) ?? "NULL")"
            )
        }
    }
}

/// What the senders record when an attempt ends, in one transaction: the delivery's outcome, the
/// endpoint's backoff and health, and — when the endpoint has failed for too long — its disabling,
/// with a `webhook.disabled` audit entry and event (to the app's other endpoints that want it).
enum WebhookAttempts {
    /// Answers whether this attempt disabled the endpoint.
    @discardableResult
    static func record(
        _ claimed: ClaimedDelivery, outcome: DeliveryOutcome, now: Int64, disableAfterMs: Int64,
        in tx: any StoreTransaction
    ) throws -> Bool {
        try tx.webhooks.finish(seq: claimed.seq, outcome: outcome, now: now)
        let delivered = outcome.state == .delivered
        if !delivered {
            // The endpoint backs off, not only this delivery: the rows behind it wait as long, so a
            // delivery that gave up does not hand a dead endpoint a fresh, immediate attempt.
            try tx.webhooks.postpone(endpointID: claimed.endpointID, until: outcome.nextAttemptAt)
        }
        // Locked: a rotation of the secret or an edit committed while this attempt was under way is
        // what this write keeps (it changes the health only, but stores the endpoint whole).
        guard let before = try tx.webhooks.endpointForUpdate(appID: claimed.appID, id: claimed.endpointID) else {
            return false
        }  // deleted meanwhile
        var after = before
        after.health = before.health.afterAttempt(
            delivered: delivered, enabled: before.enabled, now: now, disableAfterMs: disableAfterMs)
        guard after.health != before.health else { return false }
        guard case .disabledAfterFailing(let since) = after.health else {
            _ = try tx.webhooks.updateEndpoint(after)
            return false
        }
        after.enabled = false
        after.updatedAt = now
        _ = try tx.webhooks.updateEndpoint(after)
        try tx.record(
            WriteRecord(
                appID: claimed.appID, action: .webhookDisabled, targetKind: "webhook", targetID: claimed.endpointID,
                before: before.auditBytes, after: after.auditBytes,
                data: [
                    "webhookId": .string(claimed.endpointID), "url": .string(before.url),
                    "failingSince": .number(Int(since)), "lastError": outcome.error.map(JSONValue.string) ?? .null,
                ]),
            now: now)
        return true
    }
}
