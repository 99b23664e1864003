import PaywallFormat

/// The ledger: a verified notification stored once, and what it moved folded into the subscription,
/// the transactions, the rollups and the experiment arms — one write transaction, committed before
/// the store hears 200, so a retry either finds it all or none of it.
extension RevenueService {
    func ingest(appID: String, _ notification: StoreNotification, settings: RevenueSettings, now: Int64) throws
        -> (Outcome, String)
    {
        // An appAccountToken is mapped when the rollup job folds the subscriber's paywall_open; a
        // notification may come before the job's next pass. Fold now rather than decide the credit —
        // once, for good — without it (the job's own work, a second early).
        if case .start = notification.effect, case .appAccountToken(let token)? = notification.subscriber,
            try store.read({ tx in try tx.revenue.subscriber(appID: appID, token: token) }) == nil
        {
            try rollups.foldAll()
        }
        let outcome = try store.write { tx -> Outcome in
            // One ledger writer per app at a time (PostgreSQL's writers run at once): two notifications of
            // one subscription must not both find it absent. Nil: the app is gone.
            guard let app = try tx.apps.lockForLimits(appID: appID), app.archivedAt == nil else {
                throw ServiceError(.notFound, "app_not_found", "No app '\(appID)'.")
            }
            guard try tx.revenue.insertNotification(appID: appID, notification, receivedAt: now) else {
                return .duplicate
            }
            if let effect = notification.effect {
                try apply(effect, of: notification, appID: appID, settings: settings, now: now, tx)
            }
            return .stored
        }
        if outcome == .stored { outboxSignal.wake() }  // the ledger may have announced a webhook
        return (outcome, notification.id)
    }

    private func apply(
        _ effect: StoreEffect, of notification: StoreNotification, appID: String, settings: RevenueSettings,
        now: Int64, _ tx: any StoreTransaction
    ) throws {
        let facts = effect.facts
        let source = notification.source
        var subscription = try tx.revenue.subscription(appID: appID, source: source, originalID: facts.originalID)
        let kind: MoneyKind
        if var existing = subscription {
            // The same transaction announced again by another notification (a second SUBSCRIBED or
            // DID_RENEW of it, a RevenueCat event repeated under a new id) counts once, as it first
            // counted: not again as whatever the subscription's phase would make of it now.
            let next: (SubscriptionPhase, MoneyKind)
            switch effect {
            case .start(_, let trial): next = existing.phase.restart(trial: trial)
            case .payment(_, let said): next = existing.phase.pay(storeSaysConversion: said)
            case .refund: next = (existing.phase, .refund)
            }
            if next.1 != .refund,
                try tx.revenue.paymentCounted(appID: appID, source: source, transactionID: facts.transactionID)
            {
                return
            }
            kind = next.1
            if next.0 != existing.phase {
                existing.phase = next.0
                try tx.revenue.setPhase(appID: appID, source: source, originalID: facts.originalID, next.0)
            }
            subscription = existing
        } else {
            // The first this server hears of the subscription. Only its start is credited — to the
            // subscriber's last presentation before it —; a renewal or refund of a subscription that began
            // before the server heard of it is unattributed: a presentation then did not earn it.
            let subscriber = try resolve(notification.subscriber, appID: appID, tx)
            var credit = RevenueCredit.unattributed
            if case .start = effect, let subscriber {
                // Only a presentation of the same environment: a TestFlight (sandbox) purchase is not
                // credited to what a production build showed the same person.
                credit =
                    try tx.revenue.lastPresentation(
                        appID: appID, subscriberID: subscriber, environment: notification.environment,
                        after: facts.occurredAt - Int64(settings.attributionWindowHours) * 3_600_000,
                        upTo: facts.occurredAt) ?? .unattributed
            }
            let phase: SubscriptionPhase
            switch effect {
            case .start(_, let trial): (phase, kind) = SubscriptionPhase.start(trial: trial)
            case .payment(_, let said): (phase, kind) = SubscriptionPhase.paid.pay(storeSaysConversion: said)
            case .refund: (phase, kind) = (.paid, .refund)
            }
            let created = StoredSubscription(
                originalID: facts.originalID, environment: notification.environment, subscriberID: subscriber,
                productID: facts.productID, phase: phase, creditedAt: facts.occurredAt, credit: credit)
            try tx.revenue.insertSubscription(appID: appID, source: source, created)
            subscription = created
        }
        guard let subscription else { return }
        guard
            try tx.revenue.insertTransaction(
                appID: appID, source: source, facts, kind: kind, notificationID: notification.id)
        else { return }  // announced before by another notification: counted once
        try tx.revenue.addToRollup(
            appID: appID, credit: subscription.credit, environment: notification.environment,
            day: RollupSpan.day.start(of: max(0, subscription.creditedAt)), currency: facts.currency,
            Self.figures(kind, facts, creditedAt: subscription.creditedAt))
        if !subscription.credit.experimentID.isEmpty, let subscriber = subscription.subscriberID {
            let newBits = try tx.revenue.addProgress(
                appID: appID, experimentID: subscription.credit.experimentID, variant: subscription.credit.variant,
                environment: notification.environment, subscriberID: subscriber, bits: kind.progress)
            if newBits != 0 {
                try tx.revenue.countArm(
                    appID: appID, experimentID: subscription.credit.experimentID,
                    variant: subscription.credit.variant, environment: notification.environment, newBits: newBits)
            }
        }
        try WebhookOutbox.enqueue(
            type: kind.webhook, appID: appID,
            data: [
                "source": .string(source.rawValue), "kind": .string(kind.rawValue),
                "environment": .string(notification.environment.rawValue),
                "subscriberId": subscription.subscriberID.map(JSONValue.string) ?? .null,
                "productId": .string(facts.productID), "transactionId": .string(facts.transactionID),
                "originalTransactionId": .string(facts.originalID),
                "amount": .number(Double(facts.amount) / 1000), "currency": .string(facts.currency),
                "occurredAt": .number(.integer(facts.occurredAt)), "notificationId": .string(notification.id),
                "attribution": subscription.credit.json,
            ], actor: WriteActor.current, now: now, in: tx)
    }

    /// The subscriber a notification names: RevenueCat's app user id as is, Apple's token through the map.
    private func resolve(_ reference: SubscriberReference?, appID: String, _ tx: any StoreTransaction) throws -> String?
    {
        switch reference {
        case nil: nil
        case .subscriberID(let id)?: id
        case .appAccountToken(let token)?: try tx.revenue.subscriber(appID: appID, token: token)
        }
    }

    /// One transaction's change to its rollup row. The cohort windows count money within 7, 30 and 90
    /// days of the subscription's credit: a refund inside a window takes its amount out of it.
    static func figures(_ kind: MoneyKind, _ facts: StoreTransactionFacts, creditedAt: Int64) -> VerifiedFigures {
        var figures = VerifiedFigures()
        var money = VerifiedMoney()
        switch kind {
        case .trialStart: figures.trialStarts = 1
        case .purchase: figures.paidConversions = 1
        case .conversion:
            figures.trialConversions = 1
            figures.paidConversions = 1
        case .renewal: figures.renewals = 1
        case .refund: figures.refunds = 1
        }
        let signed = kind == .refund ? -facts.amount : facts.amount
        if kind == .refund { money.refunded = facts.amount } else { money.gross = facts.amount }
        let age = facts.occurredAt - creditedAt
        let day: Int64 = 86_400_000
        if age < 7 * day { money.net7d = signed }
        if age < 30 * day { money.net30d = signed }
        if age < 90 * day { money.net90d = signed }
        figures.money[facts.currency] = money
        return figures
    }
}
