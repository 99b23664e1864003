import PaywallFormat
import Storage
import XizorDomain

/// The events, written once for both databases: the member tests of the JSON columns come from
/// `EventJSON`, the rows are written by each database's `EventIngest`.
struct SQLEventStore: EventStore {
    let db: any SQLConnection
    let ingest: any EventIngest
    private var json: EventJSON { EventJSON(dialect: db.dialect) }

    func insert(appID: String, _ events: [StoredEvent], receivedAt: Int64) throws -> Int {
        try ingest.insert(appID: appID, events[...], receivedAt: receivedAt)
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
        var sql: SQL = """
            SELECT version, name, count(*), count(DISTINCT subscriber_id), \(raw: bucket) FROM events
            WHERE \(filtered(appID: appID, paywallID: paywallID, filter: filter))
            """
        sql += bucketMs == nil ? " GROUP BY version, name" : " GROUP BY version, name, \(raw: bucket)"
        return try db.rows(sql).map { row in
            FunnelCount(
                version: try row.get(0), name: try row.get(1), count: try row.get(2), subscribers: try row.get(3),
                bucket: try row.get(4))
        }
    }

    func revenue(appID: String, paywallID: String, filter: AnalyticsService.Filter) throws -> [RevenueSum] {
        try db.rows(
            """
            SELECT version, \(json.currency), sum(\(json.price)), count(*) FROM events
            WHERE \(filtered(appID: appID, paywallID: paywallID, filter: filter)) AND name = 'purchase_completed'
              AND \(json.isPriced)
            GROUP BY 1, 2
            """
        ).map { row in
            RevenueSum(
                version: try row.get(0), currency: try row.get(1), amount: try row.get(2), purchases: try row.get(3))
        }
    }

    func countWithoutContextKeys(appID: String, paywallID: String, filter: AnalyticsService.Filter) throws -> Int64 {
        let keys = filter.context.keys.sorted()
        guard !keys.isEmpty else { return 0 }
        var unfiltered = filter
        unfiltered.context = [:]
        var lacking: SQL = ""
        for (index, key) in keys.enumerated() {
            lacking += index == 0 ? json.contextLacks(key) : " OR \(json.contextLacks(key))"
        }
        return try db.row(
            """
            SELECT count(*) FROM events WHERE \(filtered(appID: appID, paywallID: paywallID, filter: unfiltered))
              AND (\(lacking))
            """
        )?.get(0) ?? 0
    }

    /// The events of one paywall's versions that `filter` keeps.
    private func filtered(appID: String, paywallID: String, filter: AnalyticsService.Filter) -> SQL {
        var sql: SQL = "app_id = \(appID) AND paywall_id = \(paywallID) AND version IS NOT NULL"
        // The hour bounds let events_by_hour find the window (its key is the hour, Migrations/0010 and
        // postgres/0008); the exact bounds then keep its milliseconds.
        if let from = filter.from {
            sql +=
                " AND (occurred_at / \(raw: "\(EventTimeIndex.bucketMs)")) >= \(EventTimeIndex.firstBucket(from: from)) AND occurred_at >= \(from)"
        }
        if let to = filter.to {
            sql +=
                " AND (occurred_at / \(raw: "\(EventTimeIndex.bucketMs)")) <= \(EventTimeIndex.lastBucket(to: to)) AND occurred_at < \(to)"
        }
        if let placement = filter.placement { sql += " AND placement = \(placement)" }
        if let environment = filter.environment.only { sql += " AND environment = \(environment.rawValue)" }
        for (key, value) in filter.context.sorted(by: { $0.key < $1.key }) {
            sql += " AND \(json.context(key, is: value))"
        }
        return sql
    }

    func presentations(
        appID: String, subscriberID: String, placement: String, paywallIDs: [String], since: Int64, atMost: Int
    ) throws -> Int {
        guard !paywallIDs.isEmpty, atMost > 0 else { return 0 }
        let count: Int64? = try db.row(
            """
            SELECT count(*) FROM (SELECT 1 FROM events WHERE app_id = \(appID) AND subscriber_id = \(subscriberID) AND placement = \(placement) AND name = 'paywall_open'
              AND paywall_id IN (\(SQL.list(paywallIDs))) AND occurred_at >= \(since) LIMIT \(Int64(atMost))) AS shown
            """
        )?.get(0)
        return Int(count ?? 0)
    }

    func paywallsWithEvents(appID: String) throws -> [String] {
        // A loose index scan: each step seeks the next paywall id in events_by_hour.
        try db.rows(
            """
            WITH RECURSIVE p(id) AS (
                SELECT min(paywall_id) FROM events WHERE app_id = \(appID)
                UNION ALL
                SELECT (SELECT min(paywall_id) FROM events WHERE app_id = \(appID) AND paywall_id > p.id) FROM p
                WHERE p.id IS NOT NULL
            )
            SELECT id FROM p WHERE id IS NOT NULL
            """
        ).map { try $0.get(0) }
    }

    func deleteExpired(appID: String, paywallID: String?, beforeHour: Int64, atMost: Int) throws -> Int {
        let paywall: SQL = paywallID.map { "paywall_id = \($0)" } ?? "paywall_id IS NULL"
        try db.run(
            """
            DELETE FROM events WHERE app_id = \(appID) AND (id, occurred_at) IN (
                SELECT id, occurred_at FROM events WHERE app_id = \(appID) AND \(paywall)
                  AND (occurred_at / \(raw: "\(EventTimeIndex.bucketMs)")) < \(beforeHour) LIMIT \(Int64(atMost)))
            """)
        return db.changes
    }

    func preparePartitions(from: Int64, to: Int64) throws -> Int {
        guard db.dialect == .postgres else { return 0 }
        let created: Int64? = try db.row("SELECT xizor_event_partitions(\(from), \(to))")?.get(0)
        return Int(created ?? 0)
    }

    func dropPartitions(endingBy before: Int64) throws -> [String] {
        guard db.dialect == .postgres else { return [] }
        return try db.rows("SELECT xizor_drop_event_partitions(\(before))").map { try $0.get(0) }
    }

    func export(
        appID: String, from: Int64?, to: Int64?, environment: EnvironmentFilter, after: EventKey?, limit: Int
    ) throws -> [ExportedEvent] {
        var sql: SQL = "SELECT \(raw: EventRows.exportColumns(json: json.asText)) FROM events WHERE app_id = \(appID)"
        if let only = environment.only { sql += " AND environment = \(only.rawValue)" }
        if let after { sql += " AND (id, occurred_at) > (\(after.id), \(after.occurredAt))" }
        if let from { sql += " AND occurred_at >= \(from)" }
        if let to { sql += " AND occurred_at < \(to)" }
        sql += " ORDER BY id, occurred_at LIMIT \(Int64(limit))"
        return try db.rows(sql).map(ExportedEvent.init(row:))
    }
}
