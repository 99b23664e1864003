import PostgresStorage
import Storage

struct PostgresPlacementStore: PlacementStore {
    let db: PGConnection

    func upsert(appID: String, key: String, paywallID: String, experimentID: String?, now: Int64) throws {
        try db.execute(
            """
            INSERT INTO placements (app_id, key, paywall_id, experiment_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (app_id, key) DO UPDATE SET paywall_id = excluded.paywall_id, experiment_id = excluded.experiment_id,
                updated_at = greatest(placements.updated_at, excluded.updated_at)
            """, [appID, key, paywallID, experimentID, now, now])
    }

    func placement(appID: String, key: String) throws -> StoredPlacement? {
        try read(appID: appID, key: key).first
    }

    func placements(appID: String) throws -> [StoredPlacement] { try read(appID: appID, key: nil) }

    /// One app's placements (or one of them) and their rules: two queries, whatever the count.
    private func read(appID: String, key: String?) throws -> [StoredPlacement] {
        let filter = key == nil ? "" : " AND placement_key = $2"
        var bindings: [any SQLBindable] = [appID]
        if let key { bindings.append(key) }
        var rules: [String: [StoredRule]] = [:]
        for row in try db.query(
            """
            SELECT placement_key, condition, paywall_id, experiment_id, active_from, active_until, cap_count, cap_seconds FROM placement_rules
            WHERE app_id = $1\(filter) ORDER BY placement_key, position
            """, bindings)
        {
            rules[try row.get(0), default: []].append(
                StoredRule(
                    condition: try row.get(1), paywallID: try row.get(2), experimentID: try row.get(3),
                    activeFrom: try row.get(4), activeUntil: try row.get(5),
                    frequencyCap: try Self.cap(count: row.get(6), seconds: row.get(7))))
        }
        return try db.query(
            """
            SELECT key, paywall_id, experiment_id, created_at, updated_at FROM placements WHERE app_id = $1\(key == nil ? "" : " AND key = $2")
            ORDER BY key
            """, bindings
        ).map { row in
            let key: String = try row.get(0)
            return StoredPlacement(
                key: key, paywallID: try row.get(1), experimentID: try row.get(2), createdAt: try row.get(3),
                updatedAt: try row.get(4), rules: rules[key] ?? [])
        }
    }

    func delete(appID: String, key: String) throws -> Bool {
        try db.execute("DELETE FROM placements WHERE app_id = $1 AND key = $2", [appID, key])
        return db.changes == 1
    }

    func replaceRules(appID: String, key: String, rules: [StoredRule], now: Int64) throws {
        try db.execute("DELETE FROM placement_rules WHERE app_id = $1 AND placement_key = $2", [appID, key])
        for (position, rule) in rules.enumerated() {
            try db.execute(
                """
                INSERT INTO placement_rules (app_id, placement_key, position, condition, paywall_id, experiment_id, active_from, active_until,
                                             cap_count, cap_seconds)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                """,
                [
                    appID, key, position, rule.condition, rule.paywallID, rule.experimentID, rule.activeFrom,
                    rule.activeUntil,
                    rule.frequencyCap.map { Int64($0.count) }, rule.frequencyCap?.seconds,
                ])
        }
        try db.execute(
            "UPDATE placements SET updated_at = greatest(updated_at, $1) WHERE app_id = $2 AND key = $3",
            [now, appID, key])
    }

    func references(appID: String, targeting paywallIDs: [String]) throws -> [String: [PlacementReference]] {
        var references: [String: [PlacementReference]] = [:]
        // In slices, far below the limit on bound parameters.
        var start = 0
        while start < paywallIDs.count {
            let slice = Array(paywallIDs[start..<min(start + 200, paywallIDs.count)])
            start += slice.count
            let marks = slice.indices.map { "$\($0 - slice.startIndex + 2)" }.joined(separator: ", ")
            for row in try db.query(
                """
                SELECT paywall_id, key, NULL::BIGINT FROM placements WHERE app_id = $1 AND paywall_id IN (\(marks))
                UNION ALL SELECT paywall_id, placement_key, position FROM placement_rules WHERE app_id = $1 AND paywall_id IN (\(marks))
                """, [appID as any SQLBindable] + slice.map { $0 as any SQLBindable })
            {
                let rule: Int64? = try row.get(2)
                references[try row.get(0), default: []].append(
                    PlacementReference(placement: try row.get(1), rule: rule.map { Int($0) }))
            }
        }
        return references.mapValues { $0.sorted() }
    }

    func keys(appID: String, experimentID: String) throws -> [String] {
        try db.query(
            """
            SELECT key FROM placements WHERE app_id = $1 AND experiment_id = $2
            UNION SELECT placement_key FROM placement_rules WHERE app_id = $3 AND experiment_id = $4 ORDER BY 1
            """, [appID, experimentID, appID, experimentID]
        ).map { try $0.get(0) }
    }

    func retarget(appID: String, experimentID: String, to paywallID: String, now: Int64) throws {
        try db.execute(
            "UPDATE placements SET paywall_id = $1, experiment_id = NULL, updated_at = greatest(updated_at, $2) WHERE app_id = $3 AND experiment_id = $4",
            [paywallID, now, appID, experimentID])
        try db.execute(
            "UPDATE placement_rules SET paywall_id = $1, experiment_id = NULL WHERE app_id = $2 AND experiment_id = $3",
            [paywallID, appID, experimentID])
    }
}
