import Storage
import XizorDomain

/// Verified revenue (Migrations/0019), written once for both databases.
struct SQLRevenueStore: RevenueStore {
    let db: any SQLConnection

    func settings(appID: String) throws -> RevenueSettings? {
        try db.row(
            """
            SELECT apple_bundle_id, apple_app_id, revenuecat_authorization, attribution_window_hours, updated_at
            FROM revenue_settings WHERE app_id = \(appID)
            """
        ).map { row in
            let hours: Int64 = try row.get(3)
            return RevenueSettings(
                appleBundleID: try row.get(0), appleAppID: try row.get(1), revenueCatAuthorizationHash: try row.get(2),
                attributionWindowHours: Int(hours), updatedAt: try row.get(4))
        }
    }

    func saveSettings(appID: String, _ s: RevenueSettings) throws {
        try db.run(
            """
            INSERT INTO revenue_settings (app_id, apple_bundle_id, apple_app_id, revenuecat_authorization, attribution_window_hours, updated_at)
            VALUES (\(appID), \(s.appleBundleID), \(s.appleAppID), \(s.revenueCatAuthorizationHash), \(Int64(s.attributionWindowHours)), \(s.updatedAt ?? 0))
            ON CONFLICT (app_id) DO UPDATE SET apple_bundle_id = excluded.apple_bundle_id, apple_app_id = excluded.apple_app_id,
              revenuecat_authorization = excluded.revenuecat_authorization,
              attribution_window_hours = excluded.attribution_window_hours, updated_at = excluded.updated_at
            """)
    }

    func hasNotification(appID: String, source: StoreSource, id: String) throws -> Bool {
        try db.row(
            "SELECT 1 FROM store_notifications WHERE app_id = \(appID) AND source = \(source.rawValue) AND id = \(id)")
            != nil
    }

    func insertNotification(appID: String, _ n: StoreNotification, receivedAt: Int64) throws -> Bool {
        try db.run(
            """
            INSERT INTO store_notifications (app_id, source, id, environment, type, received_at, body)
            VALUES (\(appID), \(n.source.rawValue), \(n.id), \(n.environment.rawValue), \(n.type), \(receivedAt), \(n.body))
            ON CONFLICT DO NOTHING
            """)
        return db.changes == 1
    }

    func subscription(appID: String, source: StoreSource, originalID: String) throws -> StoredSubscription? {
        try db.row(
            """
            SELECT environment, subscriber_id, product_id, phase, credited_at, placement, paywall_id, version, experiment_id, variant
            FROM store_subscriptions WHERE app_id = \(appID) AND source = \(source.rawValue) AND original_id = \(originalID)
            """
        ).map { row in
            let environment: String = try row.get(0)
            let phase: String = try row.get(3)
            let version: Int64 = try row.get(7)
            guard let env = DataEnvironment(rawValue: environment), let phase = SubscriptionPhase(rawValue: phase)
            else {
                throw StoreInconsistency(detail: "store_subscriptions holds '\(environment)', '\(phase)'")
            }
            return StoredSubscription(
                originalID: originalID, environment: env, subscriberID: try row.get(1), productID: try row.get(2),
                phase: phase, creditedAt: try row.get(4),
                credit: RevenueCredit(
                    placement: try row.get(5), paywallID: try row.get(6), version: Int(version),
                    experimentID: try row.get(8), variant: try row.get(9)))
        }
    }

    func insertSubscription(appID: String, source: StoreSource, _ s: StoredSubscription) throws {
        let c = s.credit
        try db.run(
            """
            INSERT INTO store_subscriptions (app_id, source, original_id, environment, subscriber_id, product_id, phase, credited_at,
              placement, paywall_id, version, experiment_id, variant)
            VALUES (\(appID), \(source.rawValue), \(s.originalID), \(s.environment.rawValue), \(s.subscriberID), \(s.productID),
              \(s.phase.rawValue), \(s.creditedAt), \(c.placement), \(c.paywallID), \(Int64(c.version)), \(c.experimentID), \(c.variant))
            """)
    }

    func setPhase(appID: String, source: StoreSource, originalID: String, _ phase: SubscriptionPhase) throws {
        try db.run(
            """
            UPDATE store_subscriptions SET phase = \(phase.rawValue)
            WHERE app_id = \(appID) AND source = \(source.rawValue) AND original_id = \(originalID)
            """)
    }

    func paymentCounted(appID: String, source: StoreSource, transactionID: String) throws -> Bool {
        try db.row(
            """
            SELECT 1 FROM store_transactions WHERE app_id = \(appID) AND source = \(source.rawValue)
              AND transaction_id = \(transactionID) AND kind <> 'refund' LIMIT 1
            """) != nil
    }

    func insertTransaction(
        appID: String, source: StoreSource, _ f: StoreTransactionFacts, kind: MoneyKind, notificationID: String
    ) throws -> Bool {
        try db.run(
            """
            INSERT INTO store_transactions (app_id, source, transaction_id, kind, original_id, occurred_at, currency, amount, notification_id)
            VALUES (\(appID), \(source.rawValue), \(f.transactionID), \(kind.rawValue), \(f.originalID), \(f.occurredAt), \(f.currency), \(f.amount), \(notificationID))
            ON CONFLICT DO NOTHING
            """)
        return db.changes == 1
    }

    func addToRollup(
        appID: String, credit c: RevenueCredit, environment: DataEnvironment, day: Int64, currency: String,
        _ f: VerifiedFigures
    ) throws {
        let m = f.money[currency] ?? VerifiedMoney()
        try db.run(
            """
            INSERT INTO verified_rollups (app_id, paywall_id, version, placement, experiment_id, variant, environment, day, currency,
              trial_starts, trial_conversions, paid_conversions, renewals, refunds, gross, refunded, net_7d, net_30d, net_90d)
            VALUES (\(appID), \(c.paywallID), \(Int64(c.version)), \(c.placement), \(c.experimentID), \(c.variant), \(environment.rawValue), \(day), \(currency),
              \(f.trialStarts), \(f.trialConversions), \(f.paidConversions), \(f.renewals), \(f.refunds), \(m.gross), \(m.refunded), \(m.net7d), \(m.net30d), \(m.net90d))
            ON CONFLICT (app_id, paywall_id, version, placement, experiment_id, variant, environment, day, currency) DO UPDATE SET
              trial_starts = verified_rollups.trial_starts + excluded.trial_starts,
              trial_conversions = verified_rollups.trial_conversions + excluded.trial_conversions,
              paid_conversions = verified_rollups.paid_conversions + excluded.paid_conversions,
              renewals = verified_rollups.renewals + excluded.renewals, refunds = verified_rollups.refunds + excluded.refunds,
              gross = verified_rollups.gross + excluded.gross, refunded = verified_rollups.refunded + excluded.refunded,
              net_7d = verified_rollups.net_7d + excluded.net_7d, net_30d = verified_rollups.net_30d + excluded.net_30d,
              net_90d = verified_rollups.net_90d + excluded.net_90d
            """)
    }

    func addProgress(
        appID: String, experimentID: String, variant: String, environment: DataEnvironment, subscriberID: String,
        bits: Int
    ) throws -> Int {
        let before: Int64 =
            try db.row(
                """
                SELECT progress FROM verified_subscribers WHERE app_id = \(appID) AND experiment_id = \(experimentID)
                  AND variant = \(variant) AND environment = \(environment.rawValue) AND subscriber_id = \(subscriberID)
                """)?.get(0) ?? -1
        let old = before < 0 ? 0 : Int(before)
        let newBits = bits & ~old
        guard newBits != 0 else { return 0 }
        if before < 0 {
            try db.run(
                """
                INSERT INTO verified_subscribers (app_id, experiment_id, variant, environment, subscriber_id, progress)
                VALUES (\(appID), \(experimentID), \(variant), \(environment.rawValue), \(subscriberID), \(Int64(old | bits)))
                """)
        } else {
            try db.run(
                """
                UPDATE verified_subscribers SET progress = \(Int64(old | bits)) WHERE app_id = \(appID) AND experiment_id = \(experimentID)
                  AND variant = \(variant) AND environment = \(environment.rawValue) AND subscriber_id = \(subscriberID)
                """)
        }
        return newBits
    }

    func countArm(
        appID: String, experimentID: String, variant: String, environment: DataEnvironment, newBits: Int
    ) throws {
        func bit(_ b: Int) -> Int64 { newBits & b != 0 ? 1 : 0 }
        try db.run(
            """
            INSERT INTO verified_experiment_rollups (app_id, experiment_id, variant, environment, trial_started, paid, trial_converted, refunded)
            VALUES (\(appID), \(experimentID), \(variant), \(environment.rawValue), \(bit(VerifiedProgress.trialStarted)), \(bit(VerifiedProgress.paid)),
              \(bit(VerifiedProgress.trialConverted)), \(bit(VerifiedProgress.refunded)))
            ON CONFLICT (app_id, experiment_id, variant, environment) DO UPDATE SET
              trial_started = verified_experiment_rollups.trial_started + excluded.trial_started,
              paid = verified_experiment_rollups.paid + excluded.paid,
              trial_converted = verified_experiment_rollups.trial_converted + excluded.trial_converted,
              refunded = verified_experiment_rollups.refunded + excluded.refunded
            """)
    }

    func subscriber(appID: String, token: String) throws -> String? {
        try db.row("SELECT subscriber_id FROM subscriber_tokens WHERE app_id = \(appID) AND token = \(token)")?.get(0)
    }

    func recordTokens(appID: String, _ pairs: [(token: String, subscriberID: String)]) throws {
        // 300 rows (900 parameters) a statement: under SQLite's and PostgreSQL's parameter limits.
        for chunk in stride(from: 0, to: pairs.count, by: 300) {
            var sql: SQL = "INSERT INTO subscriber_tokens (app_id, token, subscriber_id) VALUES "
            for (index, pair) in pairs[chunk..<min(chunk + 300, pairs.count)].enumerated() {
                if index > 0 { sql += ", " }
                sql += "(\(appID), \(pair.token), \(pair.subscriberID))"
            }
            sql += " ON CONFLICT DO NOTHING"
            try db.run(sql)
        }
    }

    func lastPresentation(
        appID: String, subscriberID: String, environment: DataEnvironment, after: Int64, upTo: Int64
    ) throws -> RevenueCredit? {
        // Through events_presentations (the subscriber's paywall_open entries, the frequency caps' index).
        try db.row(
            """
            SELECT placement, paywall_id, version, experiment_id, variant FROM events
            WHERE app_id = \(appID) AND subscriber_id = \(subscriberID) AND name = 'paywall_open' AND environment = \(environment.rawValue)
              AND occurred_at > \(after) AND occurred_at <= \(upTo) AND paywall_id IS NOT NULL AND version IS NOT NULL
            ORDER BY occurred_at DESC, id DESC LIMIT 1
            """
        ).map { row in
            let version: Int64 = try row.get(2)
            let placement: String? = try row.get(0)
            let experiment: String? = try row.get(3)
            let variant: String? = try row.get(4)
            return RevenueCredit(
                placement: placement ?? "", paywallID: try row.get(1), version: Int(version),
                experimentID: experiment ?? "", variant: experiment == nil ? "" : (variant ?? ""))
        }
    }

    func figures(
        appID: String, scope: VerifiedScope, environments: [DataEnvironment], fromDay: Int64?, toDay: Int64?
    ) throws -> [String: VerifiedFigures] {
        let group: SQL
        var filter: SQL = "app_id = \(appID) AND environment IN (\(SQL.list(environments.map(\.rawValue))))"
        switch scope {
        case .app:
            group = "CASE WHEN paywall_id = '' THEN 'unattributed' ELSE 'attributed' END"
        case .paywall(let paywallID, let placement):
            group = "CAST(version AS TEXT)"
            filter += " AND paywall_id = \(paywallID)"
            if let placement { filter += " AND placement = \(placement)" }
        case .experiment(let experimentID):
            group = "variant"
            filter += " AND experiment_id = \(experimentID)"
        }
        if let fromDay { filter += " AND day >= \(fromDay)" }
        if let toDay { filter += " AND day < \(toDay)" }
        var out: [String: VerifiedFigures] = [:]
        for row in try db.rows(
            """
            SELECT \(group), currency, CAST(sum(trial_starts) AS BIGINT), CAST(sum(trial_conversions) AS BIGINT),
              CAST(sum(paid_conversions) AS BIGINT), CAST(sum(renewals) AS BIGINT), CAST(sum(refunds) AS BIGINT),
              CAST(sum(gross) AS BIGINT), CAST(sum(refunded) AS BIGINT), CAST(sum(net_7d) AS BIGINT),
              CAST(sum(net_30d) AS BIGINT), CAST(sum(net_90d) AS BIGINT)
            FROM verified_rollups WHERE \(filter) GROUP BY \(group), currency
            """)
        {
            let key: String = try row.get(0)
            let currency: String = try row.get(1)
            func n(_ i: Int) throws -> Int64 {
                let value: Int64? = try row.get(i)
                return value ?? 0
            }
            var f = VerifiedFigures()
            f.trialStarts = try n(2)
            f.trialConversions = try n(3)
            f.paidConversions = try n(4)
            f.renewals = try n(5)
            f.refunds = try n(6)
            f.money[currency] = VerifiedMoney(
                gross: try n(7), refunded: try n(8), net7d: try n(9), net30d: try n(10), net90d: try n(11))
            out[key] = (out[key] ?? VerifiedFigures()) + f
        }
        return out
    }

    func armCounts(appID: String, experimentID: String, environments: [DataEnvironment]) throws -> [String:
        VerifiedArmCounts]
    {
        var out: [String: VerifiedArmCounts] = [:]
        for row in try db.rows(
            """
            SELECT variant, trial_started, paid, trial_converted, refunded FROM verified_experiment_rollups
            WHERE app_id = \(appID) AND experiment_id = \(experimentID) AND environment IN (\(SQL.list(environments.map(\.rawValue))))
            """)
        {
            let variant: String = try row.get(0)
            let values: [Int64] = [try row.get(1), try row.get(2), try row.get(3), try row.get(4)]
            var c = out[variant] ?? VerifiedArmCounts()
            c.trialStarted += Int(values[0])
            c.paid += Int(values[1])
            c.trialConverted += Int(values[2])
            c.refunded += Int(values[3])
            out[variant] = c
        }
        return out
    }

    func forget(appID: String, subscriberID: String) throws {
        try db.run("DELETE FROM subscriber_tokens WHERE app_id = \(appID) AND subscriber_id = \(subscriberID)")
        // Each arm's distinct counts lose what this subscriber's progress added, so they stay exact.
        for row in try db.rows(
            """
            SELECT experiment_id, variant, environment, progress FROM verified_subscribers
            WHERE app_id = \(appID) AND subscriber_id = \(subscriberID)
            """)
        {
            let progress: Int64 = try row.get(3)
            func bit(_ b: Int) -> Int64 { Int(progress) & b != 0 ? 1 : 0 }
            let experimentID: String = try row.get(0)
            let variant: String = try row.get(1)
            let environment: String = try row.get(2)
            try db.run(
                """
                UPDATE verified_experiment_rollups SET trial_started = trial_started - \(bit(VerifiedProgress.trialStarted)),
                  paid = paid - \(bit(VerifiedProgress.paid)), trial_converted = trial_converted - \(bit(VerifiedProgress.trialConverted)),
                  refunded = refunded - \(bit(VerifiedProgress.refunded))
                WHERE app_id = \(appID) AND experiment_id = \(experimentID) AND variant = \(variant) AND environment = \(environment)
                """)
        }
        try db.run("DELETE FROM verified_subscribers WHERE app_id = \(appID) AND subscriber_id = \(subscriberID)")
        try db.run(
            "UPDATE store_subscriptions SET subscriber_id = NULL WHERE app_id = \(appID) AND subscriber_id = \(subscriberID)"
        )
    }
}
