import PaywallFormat
import PostgresStorage
import Storage
import XizorAPI

struct PostgresEventStore: EventStore {
    let db: PGConnection

    func insert(appID: String, _ events: [StoredEvent], receivedAt: Int64) throws -> Int {
        var inserted = 0
        for range in EventInsertChunks.ranges(count: events.count) {
            inserted += try insert(appID: appID, events[range], receivedAt: receivedAt)
        }
        return inserted
    }

    /// One multi-row INSERT of `chunk`; answers how many rows were new.
    private func insert(appID: String, _ chunk: ArraySlice<StoredEvent>, receivedAt: Int64) throws -> Int {
        let values = (0..<chunk.count).map { r in
            let n = r * 14
            return
                "($\(n + 1), $\(n + 2), $\(n + 3), $\(n + 4), $\(n + 5), $\(n + 6), $\(n + 7), $\(n + 8), $\(n + 9), $\(n + 10)::jsonb, $\(n + 11)::jsonb, $\(n + 12), $\(n + 13), $\(n + 14))"
        }.joined(separator: ", ")
        var bindings: [any SQLBindable] = []
        bindings.reserveCapacity(chunk.count * 14)
        for event in chunk {
            bindings += [
                appID, event.id, event.name, event.occurredAt, receivedAt, event.placement, event.paywallID,
                event.version, event.subscriberID, event.context, event.properties, event.experimentID, event.variant,
                event.environment.rawValue,
            ]
        }
        try db.execute(
            """
            INSERT INTO events (app_id, id, name, occurred_at, received_at, placement, paywall_id, version, subscriber_id,
                                context, properties, experiment_id, variant, environment)
            VALUES \(values) ON CONFLICT (app_id, id) DO NOTHING
            """, bindings)
        return db.changes
    }

    func funnel(appID: String, paywallID: String, filter: AnalyticsService.Filter) throws -> [FunnelCount] {
        try funnel(appID: appID, paywallID: paywallID, filter: filter, bucketMs: nil)
    }

    func funnelSeries(appID: String, paywallID: String, filter: AnalyticsService.Filter, bucketMs: Int64) throws
        -> [FunnelCount]
    {
        try funnel(appID: appID, paywallID: paywallID, filter: filter, bucketMs: bucketMs)
    }

    /// With `bucketMs`, counted per UTC bucket too (its start, from a literal: one of the service's intervals).
    private func funnel(appID: String, paywallID: String, filter: AnalyticsService.Filter, bucketMs: Int64?) throws
        -> [FunnelCount]
    {
        precondition(bucketMs.map { $0 > 0 } ?? true, "buckets are positive")
        let bucket = bucketMs.map { "(occurred_at / \($0)) * \($0)" } ?? "NULL"
        let (condition, bindings) = filtered(appID: appID, paywallID: paywallID, filter: filter)
        var sql =
            "SELECT version, name, count(*), count(DISTINCT subscriber_id), \(bucket) FROM events WHERE \(condition)"
        sql += bucketMs == nil ? " GROUP BY version, name" : " GROUP BY version, name, \(bucket)"
        return try db.query(sql, bindings).map { row in
            FunnelCount(
                version: try row.get(0), name: try row.get(1), count: try row.get(2), subscribers: try row.get(3),
                bucket: try row.get(4))
        }
    }

    func revenue(appID: String, paywallID: String, filter: AnalyticsService.Filter) throws -> [RevenueSum] {
        let (condition, bindings) = filtered(appID: appID, paywallID: paywallID, filter: filter)
        return try db.query(
            """
            SELECT version, properties ->> 'currency', sum((properties ->> 'price')::double precision), count(*) FROM events
            WHERE \(condition) AND name = 'purchase_completed'
              AND jsonb_typeof(properties -> 'price') = 'number' AND jsonb_typeof(properties -> 'currency') = 'string'
            GROUP BY 1, 2
            """, bindings
        ).map { row in
            RevenueSum(
                version: try row.get(0), currency: try row.get(1), amount: try row.get(2), purchases: try row.get(3))
        }
    }

    /// The events of one paywall's versions that `filter` keeps (placeholders $1, $2, … in order).
    func countWithoutContextKeys(appID: String, paywallID: String, filter: AnalyticsService.Filter) throws -> Int64 {
        var unfiltered = filter
        unfiltered.context = [:]
        var (condition, bindings) = filtered(appID: appID, paywallID: paywallID, filter: unfiltered)
        let keys = filter.context.keys.sorted()
        guard !keys.isEmpty else { return 0 }
        var missing: [String] = []
        for key in keys {
            bindings.append(key)
            missing.append("context IS NULL OR NOT (context ? $\(bindings.count)::text)")
        }
        condition += " AND (" + missing.joined(separator: " OR ") + ")"
        return try db.queryOne("SELECT count(*) FROM events WHERE \(condition)", bindings)?.get(0) ?? 0
    }

    private func filtered(appID: String, paywallID: String, filter: AnalyticsService.Filter) -> (
        String, [any SQLBindable]
    ) {
        var sql = "app_id = $1 AND paywall_id = $2 AND version IS NOT NULL"
        var bindings: [any SQLBindable] = [appID, paywallID]
        func parameter(_ value: any SQLBindable) -> String {
            bindings.append(value)
            return "$\(bindings.count)"
        }
        // The hour bounds let events_by_hour find the window (its key is the hour, Migrations/postgres/0008);
        // the exact bounds then keep its milliseconds.
        if let from = filter.from {
            sql +=
                " AND (occurred_at / \(EventTimeIndex.bucketMs)) >= \(parameter(EventTimeIndex.firstBucket(from: from))) AND occurred_at >= \(parameter(from))"
        }
        if let to = filter.to {
            sql +=
                " AND (occurred_at / \(EventTimeIndex.bucketMs)) <= \(parameter(EventTimeIndex.lastBucket(to: to))) AND occurred_at < \(parameter(to))"
        }
        if let placement = filter.placement { sql += " AND placement = \(parameter(placement))" }
        if let environment = filter.environment.only { sql += " AND environment = \(parameter(environment.rawValue))" }
        for (key, value) in filter.context.sorted(by: { $0.key < $1.key }) {
            // Typed like the SDK's context: "1" never matches the number 1 or true.
            let field = parameter(key)
            switch value {
            case .string(let text):
                sql +=
                    " AND jsonb_typeof(context -> \(field)::text) = 'string' AND context ->> \(field)::text = \(parameter(text))"
            case .number(let number):
                sql +=
                    " AND jsonb_typeof(context -> \(field)::text) = 'number' AND (context ->> \(field)::text)::double precision = \(parameter(number))::double precision"
            case .bool(let flag):
                sql += " AND context -> \(field)::text = \(parameter(flag ? "true" : "false"))::jsonb"
            }
        }
        return (sql, bindings)
    }

    func presentations(
        appID: String, subscriberID: String, placement: String, paywallIDs: [String], since: Int64, atMost: Int
    ) throws -> Int {
        guard !paywallIDs.isEmpty, atMost > 0 else { return 0 }
        let marks = paywallIDs.indices.map { "$\($0 + 4)" }.joined(separator: ", ")
        let count: Int64? = try db.queryOne(
            """
            SELECT count(*) FROM (SELECT 1 FROM events WHERE app_id = $1 AND subscriber_id = $2 AND placement = $3 AND name = 'paywall_open'
              AND paywall_id IN (\(marks)) AND occurred_at >= $\(paywallIDs.count + 4) LIMIT $\(paywallIDs.count + 5)) AS shown
            """,
            ([appID, subscriberID, placement] as [any SQLBindable]) + paywallIDs.map { $0 as any SQLBindable } + [
                since, Int64(atMost),
            ])?.get(0)
        return Int(count ?? 0)
    }

    func export(appID: String, from: Int64?, to: Int64?, environment: EnvironmentFilter, after: String?, limit: Int)
        throws -> [ExportedEvent]
    {
        var sql = "SELECT \(EventRows.exportColumns { "\($0)::text" }) FROM events WHERE app_id = $1"
        var bindings: [any SQLBindable] = [appID]
        func bind(_ value: any SQLBindable) -> String {
            bindings.append(value)
            return "$\(bindings.count)"
        }
        if let only = environment.only { sql += " AND environment = \(bind(only.rawValue))" }
        if let after { sql += " AND id > \(bind(after))" }
        if let from { sql += " AND occurred_at >= \(bind(from))" }
        if let to { sql += " AND occurred_at < \(bind(to))" }
        sql += " ORDER BY id LIMIT \(bind(Int64(limit)))"
        return try db.query(sql, bindings).map(ExportedEvent.init(row:))
    }

    func variantRevenue(appID: String, experimentID: String, environment: EnvironmentFilter) throws -> [String:
        [RevenueSum]]
    {
        var revenue: [String: [RevenueSum]] = [:]
        for row in try db.query(
            """
            SELECT variant, properties ->> 'currency', sum((properties ->> 'price')::double precision), count(*) FROM events
            WHERE app_id = $1 AND experiment_id = $2 AND ($3::text IS NULL OR environment = $3) AND variant IS NOT NULL
              AND name = 'purchase_completed'
              AND jsonb_typeof(properties -> 'price') = 'number' AND jsonb_typeof(properties -> 'currency') = 'string'
            GROUP BY 1, 2 ORDER BY 1, 2
            """, [appID, experimentID, environment.only?.rawValue])
        {
            revenue[try row.get(0), default: []].append(
                RevenueSum(version: 0, currency: try row.get(1), amount: try row.get(2), purchases: try row.get(3)))
        }
        return revenue
    }

    func variantCounts(appID: String, experimentID: String, environment: EnvironmentFilter) throws -> [String:
        VariantCounts]
    {
        var counts: [String: VariantCounts] = [:]
        // A conversion counts only for a subscriber who saw that variant (so the rate stays a proportion
        // even when an open event was lost).
        for row in try db.query(
            """
            SELECT variant,
                   count(*) FILTER (WHERE name = 'paywall_open'),
                   count(DISTINCT subscriber_id) FILTER (WHERE name = 'paywall_open'),
                   count(DISTINCT subscriber_id) FILTER (WHERE name = 'purchase_completed' AND EXISTS (
                       SELECT 1 FROM events o WHERE o.app_id = e.app_id AND o.experiment_id = e.experiment_id
                         AND o.variant = e.variant AND o.subscriber_id = e.subscriber_id AND o.name = 'paywall_open'
                         AND o.environment = e.environment)),
                   count(DISTINCT subscriber_id),
                   count(DISTINCT subscriber_id) FILTER (WHERE name = 'purchase_completed')
            FROM events e WHERE app_id = $1 AND experiment_id = $2 AND ($3::text IS NULL OR environment = $3) GROUP BY variant
            """, [appID, experimentID, environment.only?.rawValue])
        {
            guard let variant: String = try row.get(0) else { continue }
            counts[variant] = VariantCounts(
                impressions: try row.get(1), subscribers: try row.get(2), converted: try row.get(3),
                exposed: try row.get(4), exposedConverted: try row.get(5))
        }
        return counts
    }
}
