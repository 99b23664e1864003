import Storage
import XizorDomain

/// The rollups (Migrations/0015), written once for both databases.
struct SQLEventRollupStore: EventRollupStore {
    let db: any SQLConnection
    private var json: EventJSON { EventJSON(dialect: db.dialect) }

    /// What `RollupEvent.init(row:at:)` reads, from `events e`: a purchase's currency and price only
    /// when it is a priced `purchase_completed` (the revenue the funnel and the results sum).
    var eventColumns: SQL {
        let priced: SQL = "e.name = 'purchase_completed' AND \(json.isPriced)"
        return """
            e.name, e.occurred_at, e.placement, e.paywall_id, e.version, e.subscriber_id, e.experiment_id, e.variant,
            e.environment, CASE WHEN \(priced) THEN \(json.currency) END, CASE WHEN \(priced) THEN \(json.price) END
            """
    }

    func queued(after: Int64, limit: Int) throws -> [QueuedEvent] {
        try db.rows(
            """
            SELECT q.seq, q.app_id, e.id, \(eventColumns) FROM event_rollup_queue q
            LEFT JOIN events e ON e.app_id = q.app_id AND e.id = q.event_id AND e.occurred_at = q.occurred_at
            WHERE q.seq > \(after) ORDER BY q.seq LIMIT \(Int64(limit))
            """
        ).map { row in
            let id: String? = try row.get(2)
            return QueuedEvent(
                seq: try row.get(0), appID: try row.get(1), event: id == nil ? nil : try RollupEvent(row: row, at: 3))
        }
    }

    func queuedCount(appID: String, atMost: Int) throws -> Int {
        let count: Int64? = try db.row(
            """
            SELECT count(*) FROM (SELECT 1 FROM event_rollup_queue WHERE app_id = \(appID) LIMIT \(Int64(atMost))) AS waiting
            """
        )?.get(0)
        return Int(count ?? 0)
    }

    func queued(appID: String, scope: RollupScope, from: Int64, to: Int64) throws -> [RollupEvent] {
        try db.rows(
            """
            SELECT \(eventColumns) FROM event_rollup_queue q JOIN events e ON e.app_id = q.app_id AND e.id = q.event_id AND e.occurred_at = q.occurred_at
            WHERE q.app_id = \(appID) AND \(Self.kept(scope)) AND e.occurred_at >= \(from) AND e.occurred_at < \(to)
            """
        ).map { try RollupEvent(row: $0, at: 0) }
    }

    func queued(appID: String, experimentID: String, environment: EnvironmentFilter) throws -> [RollupEvent] {
        var sql: SQL = """
            SELECT \(eventColumns) FROM event_rollup_queue q JOIN events e ON e.app_id = q.app_id AND e.id = q.event_id AND e.occurred_at = q.occurred_at
            WHERE q.app_id = \(appID) AND e.experiment_id = \(experimentID)
            """
        if let only = environment.only { sql += " AND e.environment = \(only.rawValue)" }
        return try db.rows(sql).map { try RollupEvent(row: $0, at: 0) }
    }

    /// The events of `scope`'s paywall versions (the funnel's rows), as `e`.
    private static func kept(_ scope: RollupScope) -> SQL {
        var sql: SQL = "e.paywall_id = \(scope.paywallID) AND e.version IS NOT NULL"
        if let placement = scope.placement { sql += " AND e.placement = \(placement)" }
        if let only = scope.environment.only { sql += " AND e.environment = \(only.rawValue)" }
        return sql
    }

    /// The rollup rows of `scope` (no alias).
    private static func cells(_ scope: RollupScope, span: RollupSpan, from: Int64, to: Int64) -> SQL {
        var sql: SQL = """
            paywall_id = \(scope.paywallID) AND span = \(span.milliseconds) AND bucket >= \(from) AND bucket < \(to)
            """
        if let placement = scope.placement { sql += " AND placement = \(placement)" }
        if let only = scope.environment.only { sql += " AND environment = \(only.rawValue)" }
        return sql
    }

    func lockFold() throws {
        guard db.dialect == .postgres else { return }
        _ = try db.row("SELECT pg_advisory_xact_lock(\(Self.foldLockKey))")
    }

    /// The advisory lock's key: "xizor rollup" in its first bytes, any fixed number would do.
    private static let foldLockKey: Int64 = 0x7869_7a72_726f_6c6c

    func dequeue(_ seqs: [Int64]) throws {
        for start in stride(from: 0, to: seqs.count, by: 500) {
            let chunk = Array(seqs[start..<min(start + 500, seqs.count)])
            try db.run("DELETE FROM event_rollup_queue WHERE seq IN (\(SQL.list(chunk)))")
        }
    }

    func fold(appID: String, _ rollup: EventRollup) throws {
        for (key, cell) in rollup.funnel {
            var merged = cell
            if cell.subscribers != nil, let stored = try storedSketch(appID: appID, key) {
                merged.subscribers?.merge(stored)
            }
            let blob = merged.subscribers?.encoded()
            try db.run(
                """
                INSERT INTO funnel_rollups (app_id, paywall_id, span, bucket, version, placement, environment, name, events, subscribers)
                VALUES (\(appID), \(key.paywallID), \(key.span.milliseconds), \(key.bucket), \(key.version), \(key.placement),
                        \(key.environment.rawValue), \(key.name), \(cell.events), \(blob))
                ON CONFLICT (app_id, paywall_id, span, bucket, version, placement, environment, name)
                DO UPDATE SET events = funnel_rollups.events + excluded.events, subscribers = excluded.subscribers
                """)
        }
        for (key, cell) in rollup.revenue {
            try db.run(
                """
                INSERT INTO revenue_rollups (app_id, paywall_id, span, bucket, version, placement, environment, currency, amount, purchases)
                VALUES (\(appID), \(key.paywallID), \(key.span.milliseconds), \(key.bucket), \(key.version), \(key.placement),
                        \(key.environment.rawValue), \(key.currency), \(cell.amount), \(cell.purchases))
                ON CONFLICT (app_id, paywall_id, span, bucket, version, placement, environment, currency)
                DO UPDATE SET amount = revenue_rollups.amount + excluded.amount, purchases = revenue_rollups.purchases + excluded.purchases
                """)
        }
        try foldExperiments(appID: appID, rollup)
    }

    func storedSketch(appID: String, _ key: FunnelCellKey) throws -> SubscriberSketch? {
        guard
            let row = try db.row(
                """
                SELECT subscribers FROM funnel_rollups WHERE app_id = \(appID) AND \(Self.cell(key))
                """)
        else { return nil }
        let bytes: [UInt8]? = try row.get(0)
        return try bytes.map { bytes in
            do { return try SubscriberSketch(encoded: bytes) } catch {
                throw StoreInconsistency(detail: "funnel_rollups of app '\(appID)': \(error)")
            }
        }
    }

    private func foldExperiments(appID: String, _ rollup: EventRollup) throws {
        let stored = try progress(appID: appID, of: Array(rollup.progress.keys))
        for (arm, change) in rollup.armCounts(over: stored) {
            try db.run(
                """
                INSERT INTO experiment_rollups (app_id, experiment_id, variant, environment, impressions, subscribers, converted, exposed, exposed_converted)
                VALUES (\(appID), \(arm.experimentID), \(arm.variant), \(arm.environment.rawValue), \(change.impressions),
                        \(change.subscribers), \(change.converted), \(change.exposed), \(change.exposedConverted))
                ON CONFLICT (app_id, experiment_id, variant, environment) DO UPDATE SET
                    impressions = experiment_rollups.impressions + excluded.impressions,
                    subscribers = experiment_rollups.subscribers + excluded.subscribers,
                    converted = experiment_rollups.converted + excluded.converted,
                    exposed = experiment_rollups.exposed + excluded.exposed,
                    exposed_converted = experiment_rollups.exposed_converted + excluded.exposed_converted
                """)
        }
        // Rows of changed progress, 500 to a statement: a backfill's pass changes thousands, and one
        // statement each made the job's round trips to PostgreSQL its bottleneck.
        var changed: [(ExperimentMember, MemberProgress)] = []
        for (member, progress) in rollup.progress {
            let merged = (stored[member] ?? []).union(progress)
            if merged != stored[member] { changed.append((member, merged)) }
        }
        for start in stride(from: 0, to: changed.count, by: 500) {
            var rows: SQL = ""
            for (index, (member, progress)) in changed[start..<min(start + 500, changed.count)].enumerated() {
                rows += """
                    \(raw: index == 0 ? "" : ", ")(\(appID), \(member.arm.experimentID), \(member.arm.variant),
                      \(member.arm.environment.rawValue), \(member.subscriberID), \(Int64(progress.rawValue)))
                    """
            }
            try db.run(
                """
                INSERT INTO experiment_subscribers (app_id, experiment_id, variant, environment, subscriber_id, seen)
                VALUES \(rows)
                ON CONFLICT (app_id, experiment_id, variant, environment, subscriber_id) DO UPDATE SET seen = excluded.seen
                """)
        }
        for (arm, currencies) in rollup.experimentRevenue {
            for (currency, cell) in currencies {
                try db.run(
                    """
                    INSERT INTO experiment_revenue_rollups (app_id, experiment_id, variant, environment, currency, amount, purchases)
                    VALUES (\(appID), \(arm.experimentID), \(arm.variant), \(arm.environment.rawValue), \(currency), \(cell.amount), \(cell.purchases))
                    ON CONFLICT (app_id, experiment_id, variant, environment, currency) DO UPDATE SET
                        amount = experiment_revenue_rollups.amount + excluded.amount,
                        purchases = experiment_revenue_rollups.purchases + excluded.purchases
                    """)
            }
        }
    }

    func funnelCells(
        appID: String, scope: RollupScope, span: RollupSpan, from: Int64, to: Int64, after: FunnelCellKey?, limit: Int
    ) throws -> [(FunnelCellKey, FunnelCell)] {
        var sql: SQL = """
            SELECT paywall_id, version, placement, environment, name, bucket, events, subscribers FROM funnel_rollups
            WHERE app_id = \(appID) AND \(Self.cells(scope, span: span, from: from, to: to))
            """
        if let after {
            sql += """
                 AND (bucket, version, placement, environment, name) > (\(after.bucket), \(after.version), \(after.placement),
                      \(after.environment.rawValue), \(after.name))
                """
        }
        sql += " ORDER BY bucket, version, placement, environment, name LIMIT \(Int64(limit))"
        return try db.rows(sql).map { row in
            let key = FunnelCellKey(
                paywallID: try row.get(0), version: try row.get(1), placement: try row.get(2),
                environment: try Self.environment(row, 3), name: try row.get(4), span: span, bucket: try row.get(5))
            let bytes: [UInt8]? = try row.get(7)
            let sketch: SubscriberSketch?
            do { sketch = try bytes.map { try SubscriberSketch(encoded: $0) } } catch {
                throw StoreInconsistency(detail: "funnel_rollups of app '\(appID)': \(error)")
            }
            return (key, FunnelCell(events: try row.get(6), subscribers: sketch))
        }
    }

    func revenueCells(appID: String, scope: RollupScope, span: RollupSpan, from: Int64, to: Int64) throws
        -> [(RevenueCellKey, RevenueCell)]
    {
        try db.rows(
            """
            SELECT paywall_id, version, placement, environment, currency, bucket, amount, purchases FROM revenue_rollups
            WHERE app_id = \(appID) AND \(Self.cells(scope, span: span, from: from, to: to))
            """
        ).map { row in
            let key = RevenueCellKey(
                paywallID: try row.get(0), version: try row.get(1), placement: try row.get(2),
                environment: try Self.environment(row, 3), currency: try row.get(4), span: span, bucket: try row.get(5))
            return (key, RevenueCell(amount: try row.get(6), purchases: try row.get(7)))
        }
    }

    func armCounts(appID: String, experimentID: String, environment: EnvironmentFilter) throws
        -> [ExperimentArm: VariantCounts]
    {
        var sql: SQL = """
            SELECT variant, environment, impressions, subscribers, converted, exposed, exposed_converted
            FROM experiment_rollups WHERE app_id = \(appID) AND experiment_id = \(experimentID)
            """
        if let only = environment.only { sql += " AND environment = \(only.rawValue)" }
        var counts: [ExperimentArm: VariantCounts] = [:]
        for row in try db.rows(sql) {
            let arm = ExperimentArm(
                experimentID: experimentID, variant: try row.get(0), environment: try Self.environment(row, 1))
            counts[arm] = VariantCounts(
                impressions: try row.get(2), subscribers: try row.get(3), converted: try row.get(4),
                exposed: try row.get(5), exposedConverted: try row.get(6))
        }
        return counts
    }

    func armRevenue(appID: String, experimentID: String, environment: EnvironmentFilter) throws
        -> [ExperimentArm: [String: RevenueCell]]
    {
        var sql: SQL = """
            SELECT variant, environment, currency, amount, purchases FROM experiment_revenue_rollups
            WHERE app_id = \(appID) AND experiment_id = \(experimentID)
            """
        if let only = environment.only { sql += " AND environment = \(only.rawValue)" }
        var revenue: [ExperimentArm: [String: RevenueCell]] = [:]
        for row in try db.rows(sql) {
            let arm = ExperimentArm(
                experimentID: experimentID, variant: try row.get(0), environment: try Self.environment(row, 1))
            revenue[arm, default: [:]][try row.get(2)] = RevenueCell(amount: try row.get(3), purchases: try row.get(4))
        }
        return revenue
    }

    /// One query per arm and 500 subscribers (a pass's members are mostly of a few arms).
    func progress(appID: String, of members: [ExperimentMember]) throws -> [ExperimentMember: MemberProgress] {
        var stored: [ExperimentMember: MemberProgress] = [:]
        for (arm, armMembers) in Dictionary(grouping: members, by: \.arm) {
            let subscribers = armMembers.map(\.subscriberID)
            for start in stride(from: 0, to: subscribers.count, by: 500) {
                let chunk = Array(subscribers[start..<min(start + 500, subscribers.count)])
                for row in try db.rows(
                    """
                    SELECT subscriber_id, seen FROM experiment_subscribers WHERE app_id = \(appID) AND \(Self.arm(arm))
                      AND subscriber_id IN (\(SQL.list(chunk)))
                    """)
                {
                    let seen: Int64 = try row.get(1)
                    guard (0...3).contains(seen) else {
                        throw StoreInconsistency(detail: "experiment_subscribers holds the progress \(seen)")
                    }
                    stored[ExperimentMember(arm: arm, subscriberID: try row.get(0))] = MemberProgress(
                        rawValue: UInt8(seen))
                }
            }
        }
        return stored
    }

    /// One funnel rollup row, by its whole key (no alias, after `app_id`).
    static func cell(_ key: FunnelCellKey) -> SQL {
        """
        paywall_id = \(key.paywallID) AND span = \(key.span.milliseconds) AND bucket = \(key.bucket)
          AND version = \(key.version) AND placement = \(key.placement) AND environment = \(key.environment.rawValue)
          AND name = \(key.name)
        """
    }

    /// One arm's rows (no alias, after `app_id`).
    static func arm(_ arm: ExperimentArm) -> SQL {
        "experiment_id = \(arm.experimentID) AND variant = \(arm.variant) AND environment = \(arm.environment.rawValue)"
    }

    static func environment(_ row: Row, _ index: Int) throws -> DataEnvironment {
        let text: String = try row.get(index)
        guard let environment = DataEnvironment(rawValue: text) else {
            throw StoreInconsistency(detail: "a rollup row has the unknown environment '\(text)'")
        }
        return environment
    }
}

extension RollupEvent {
    /// From `SQLEventRollupStore.eventColumns`, starting at column `at`.
    init(row: Row, at first: Int) throws {
        let environment: String = try row.get(first + 8)
        guard let known = DataEnvironment(rawValue: environment) else {
            throw StoreInconsistency(detail: "an event has the unknown environment '\(environment)'")
        }
        let version: Int64? = try row.get(first + 4)
        let currency: String? = try row.get(first + 9)
        let amount: Double? = try row.get(first + 10)
        self.init(
            name: try row.get(first), occurredAt: try row.get(first + 1), placement: try row.get(first + 2),
            paywallID: try row.get(first + 3), version: version.map { Int($0) }, subscriberID: try row.get(first + 5),
            experimentID: try row.get(first + 6), variant: try row.get(first + 7), environment: known,
            revenue: currency.flatMap { currency in amount.map { .init(currency: currency, amount: $0) } })
    }
}
