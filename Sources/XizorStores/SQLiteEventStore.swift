import PaywallFormat
import Storage
import XizorAPI

struct SQLiteEventStore: EventStore {
    let db: Database

    func insert(appID: String, _ events: [StoredEvent], receivedAt: Int64) throws -> Int {
        var inserted = 0
        for range in EventInsertChunks.ranges(count: events.count) {
            inserted += try insert(appID: appID, events[range], receivedAt: receivedAt)
        }
        return inserted
    }

    /// One multi-row INSERT of `chunk`; answers how many rows were new. Values are bound by type
    /// straight into the cached statement of the chunk's shape (no boxed bindings: this runs for
    /// every event ingested, inside the writer's transaction).
    private func insert(appID: String, _ chunk: ArraySlice<StoredEvent>, receivedAt: Int64) throws -> Int {
        guard let sql = SQLiteEventStore.insertSQL[chunk.count] else {
            preconditionFailure(
                "EventInsertChunks cuts batches into \(EventInsertChunks.shapes) rows, not \(chunk.count)")
        }
        let statement = try db.cachedStatement(sql)
        defer { statement.reset() }
        var parameter: Int32 = 0
        func text(_ value: String?) throws {
            parameter += 1
            if let value { try statement.bindText(value, at: parameter) } else { try statement.bindNull(at: parameter) }
        }
        func integer(_ value: Int64?) throws {
            parameter += 1
            if let value {
                try statement.bindInt64(value, at: parameter)
            } else {
                try statement.bindNull(at: parameter)
            }
        }
        for event in chunk {
            try text(appID)
            try text(event.id)
            try text(event.name)
            try integer(event.occurredAt)
            try integer(receivedAt)
            try text(event.placement)
            try text(event.paywallID)
            try integer(event.version.map(Int64.init))
            try text(event.subscriberID)
            try text(event.context)
            try text(event.properties)
            try text(event.experimentID)
            try text(event.variant)
            try text(event.environment.rawValue)
        }
        precondition(parameter == Int32(chunk.count * 14), "every column of every row is bound")
        try statement.run()
        return db.changes
    }

    /// The INSERT of each chunk shape, built once.
    private static let insertSQL: [Int: String] = Dictionary(
        uniqueKeysWithValues: EventInsertChunks.shapes.map { rows in
            let row = "(" + Array(repeating: "?", count: 14).joined(separator: ", ") + ")"
            return (
                rows,
                """
                INSERT INTO events (app_id, id, name, occurred_at, received_at, placement, paywall_id, version, subscriber_id,
                                    context, properties, experiment_id, variant, environment)
                VALUES \(Array(repeating: row, count: rows).joined(separator: ", ")) ON CONFLICT (app_id, id) DO NOTHING
                """
            )
        })

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
            SELECT version, json_extract(properties, '$.currency'), sum(json_extract(properties, '$.price')), count(*) FROM events
            WHERE \(condition) AND name = 'purchase_completed'
              AND json_type(properties, '$.price') IN ('integer', 'real') AND json_type(properties, '$.currency') = 'text'
            GROUP BY 1, 2
            """, bindings
        ).map { row in
            RevenueSum(
                version: try row.get(0), currency: try row.get(1), amount: try row.get(2), purchases: try row.get(3))
        }
    }

    func countWithoutContextKeys(appID: String, paywallID: String, filter: AnalyticsService.Filter) throws -> Int64 {
        var unfiltered = filter
        unfiltered.context = [:]
        var (condition, bindings) = filtered(appID: appID, paywallID: paywallID, filter: unfiltered)
        let keys = filter.context.keys.sorted()
        guard !keys.isEmpty else { return 0 }
        condition += " AND (" + keys.map { _ in "json_type(context, ?) IS NULL" }.joined(separator: " OR ") + ")"
        bindings += keys.map { "$.\"\($0)\"" }
        return try db.queryOne("SELECT count(*) FROM events WHERE \(condition)", bindings)?.get(0) ?? 0
    }

    /// The events of one paywall's versions that `filter` keeps.
    private func filtered(appID: String, paywallID: String, filter: AnalyticsService.Filter) -> (
        String, [any SQLBindable]
    ) {
        var sql = "app_id = ? AND paywall_id = ? AND version IS NOT NULL"
        var bindings: [any SQLBindable] = [appID, paywallID]
        // The hour bounds let events_by_hour find the window (its key is the hour, Migrations/0010);
        // the exact bounds then keep its milliseconds.
        if let from = filter.from {
            sql += " AND occurred_at / \(EventTimeIndex.bucketMs) >= ? AND occurred_at >= ?"
            bindings += [EventTimeIndex.firstBucket(from: from), from]
        }
        if let to = filter.to {
            sql += " AND occurred_at / \(EventTimeIndex.bucketMs) <= ? AND occurred_at < ?"
            bindings += [EventTimeIndex.lastBucket(to: to), to]
        }
        if let placement = filter.placement {
            sql += " AND placement = ?"
            bindings.append(placement)
        }
        if let environment = filter.environment.only {
            sql += " AND environment = ?"
            bindings.append(environment.rawValue)
        }
        for (key, value) in filter.context.sorted(by: { $0.key < $1.key }) {
            // The service refuses keys with a double quote, which SQLite's JSON paths cannot escape.
            precondition(!key.contains("\""), "context keys reach the store without double quotes")
            // Typed like the SDK's context: "1" never matches the number 1 or true.
            let path = "$.\"\(key)\""
            switch value {
            case .string(let text):
                sql += " AND json_type(context, ?) = 'text' AND json_extract(context, ?) = ?"
                bindings += [path, path, text]
            case .number(let number):
                sql += " AND json_type(context, ?) IN ('integer', 'real') AND json_extract(context, ?) = ?"
                bindings += [path, path, number]
            case .bool(let flag):
                sql += " AND json_type(context, ?) = ?"
                bindings += [path, flag ? "true" : "false"]
            }
        }
        return (sql, bindings)
    }

    func presentations(
        appID: String, subscriberID: String, placement: String, paywallIDs: [String], since: Int64, atMost: Int
    ) throws -> Int {
        guard !paywallIDs.isEmpty, atMost > 0 else { return 0 }
        let marks = Array(repeating: "?", count: paywallIDs.count).joined(separator: ", ")
        let count: Int64? = try db.queryOne(
            """
            SELECT count(*) FROM (SELECT 1 FROM events WHERE app_id = ? AND subscriber_id = ? AND placement = ? AND name = 'paywall_open'
              AND paywall_id IN (\(marks)) AND occurred_at >= ? LIMIT ?)
            """,
            ([appID, subscriberID, placement] as [any SQLBindable]) + paywallIDs.map { $0 as any SQLBindable } + [
                since, Int64(atMost),
            ])?.get(0)
        return Int(count ?? 0)
    }

    func export(appID: String, from: Int64?, to: Int64?, environment: EnvironmentFilter, after: String?, limit: Int)
        throws -> [ExportedEvent]
    {
        var sql = "SELECT \(EventRows.exportColumns { $0 }) FROM events WHERE app_id = ?"
        var bindings: [any SQLBindable] = [appID]
        if let only = environment.only {
            sql += " AND environment = ?"
            bindings.append(only.rawValue)
        }
        if let after {
            sql += " AND id > ?"
            bindings.append(after)
        }
        if let from {
            sql += " AND occurred_at >= ?"
            bindings.append(from)
        }
        if let to {
            sql += " AND occurred_at < ?"
            bindings.append(to)
        }
        sql += " ORDER BY id LIMIT ?"
        bindings.append(Int64(limit))
        return try db.query(sql, bindings).map(ExportedEvent.init(row:))
    }

    func variantRevenue(appID: String, experimentID: String, environment: EnvironmentFilter) throws -> [String:
        [RevenueSum]]
    {
        var revenue: [String: [RevenueSum]] = [:]
        for row in try db.query(
            """
            SELECT variant, json_extract(properties, '$.currency'), sum(json_extract(properties, '$.price')), count(*) FROM events
            WHERE app_id = ? AND experiment_id = ? AND (?3 IS NULL OR environment = ?3) AND variant IS NOT NULL AND name = 'purchase_completed'
              AND json_type(properties, '$.price') IN ('integer', 'real') AND json_type(properties, '$.currency') = 'text'
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
                   sum(name = 'paywall_open'),
                   count(DISTINCT CASE WHEN name = 'paywall_open' THEN subscriber_id END),
                   count(DISTINCT CASE WHEN name = 'purchase_completed' AND EXISTS (
                       SELECT 1 FROM events o WHERE o.app_id = events.app_id AND o.experiment_id = events.experiment_id
                         AND o.variant = events.variant AND o.subscriber_id = events.subscriber_id AND o.name = 'paywall_open'
                         AND o.environment = events.environment)
                       THEN subscriber_id END),
                   count(DISTINCT subscriber_id),
                   count(DISTINCT CASE WHEN name = 'purchase_completed' THEN subscriber_id END)
            FROM events WHERE app_id = ?1 AND experiment_id = ?2 AND (?3 IS NULL OR environment = ?3) GROUP BY variant
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
