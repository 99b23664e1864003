import Storage
import XizorDomain

struct SQLPlacementStore: PlacementStore {
    let db: any SQLConnection

    func upsert(appID: String, key: String, paywallID: String, experimentID: String?, now: Int64) throws {
        try db.run(
            """
            INSERT INTO placements (app_id, key, paywall_id, experiment_id, created_at, updated_at) VALUES (\(appID), \(key), \(paywallID), \(experimentID), \(now), \(now))
            ON CONFLICT (app_id, key) DO UPDATE SET paywall_id = excluded.paywall_id, experiment_id = excluded.experiment_id,
                updated_at = greatest(placements.updated_at, excluded.updated_at)
            """)
    }

    func placement(appID: String, key: String) throws -> StoredPlacement? {
        try read(appID: appID, key: key).first
    }

    func placements(appID: String) throws -> [StoredPlacement] { try read(appID: appID, key: nil) }

    /// One app's placements (or one of them) and their rules: two queries, whatever the count.
    private func read(appID: String, key: String?) throws -> [StoredPlacement] {
        var rules: [String: [StoredRule]] = [:]
        let ruleFilter: SQL = key.map { " AND placement_key = \($0)" } ?? ""
        for row in try db.rows(
            """
            SELECT placement_key, condition, paywall_id, experiment_id, active_from, active_until, cap_count, cap_seconds FROM placement_rules
            WHERE app_id = \(appID)\(ruleFilter) ORDER BY placement_key, position
            """)
        {
            rules[try row.get(0), default: []].append(
                StoredRule(
                    condition: try row.get(1), paywallID: try row.get(2), experimentID: try row.get(3),
                    activeFrom: try row.get(4), activeUntil: try row.get(5),
                    frequencyCap: try Self.cap(count: row.get(6), seconds: row.get(7))))
        }
        let placementFilter: SQL = key.map { " AND key = \($0)" } ?? ""
        return try db.rows(
            """
            SELECT key, paywall_id, experiment_id, created_at, updated_at FROM placements WHERE app_id = \(appID)\(placementFilter)
            ORDER BY key
            """
        ).map { row in
            let key: String = try row.get(0)
            return StoredPlacement(
                key: key, paywallID: try row.get(1), experimentID: try row.get(2), createdAt: try row.get(3),
                updatedAt: try row.get(4), rules: rules[key] ?? [])
        }
    }

    func delete(appID: String, key: String) throws -> Bool {
        try db.run("DELETE FROM placements WHERE app_id = \(appID) AND key = \(key)")
        return db.changes == 1
    }

    func replaceRules(appID: String, key: String, rules: [StoredRule], now: Int64) throws {
        try db.run("DELETE FROM placement_rules WHERE app_id = \(appID) AND placement_key = \(key)")
        for (position, rule) in rules.enumerated() {
            try db.run(
                """
                INSERT INTO placement_rules (app_id, placement_key, position, condition, paywall_id, experiment_id, active_from, active_until,
                                             cap_count, cap_seconds)
                VALUES (\(appID), \(key), \(position), \(rule.condition), \(rule.paywallID), \(rule.experimentID), \(rule.activeFrom), \(rule.activeUntil), \(rule.frequencyCap.map { Int64($0.count) }), \(rule.frequencyCap?.seconds))
                """)
        }
        try db.run(
            "UPDATE placements SET updated_at = greatest(updated_at, \(now)) WHERE app_id = \(appID) AND key = \(key)")
    }

    func references(appID: String, targeting paywallIDs: [String]) throws -> [String: [PlacementReference]] {
        // Per paywall, one reference per placement or rule: through an experiment when one of its
        // variants is the paywall (a control is also the placement's own paywall_id), else directly.
        var references: [String: [PlacementReference]] = [:]
        // In slices, far below the limit on bound parameters.
        var start = 0
        while start < paywallIDs.count {
            let slice = Array(paywallIDs[start..<min(start + 200, paywallIDs.count)])
            start += slice.count
            for row in try db.rows(
                """
                SELECT paywall_id, key, CAST(NULL AS BIGINT), CAST(NULL AS TEXT), CAST(NULL AS TEXT) FROM placements
                WHERE app_id = \(appID) AND paywall_id IN (\(SQL.list(slice)))
                UNION ALL SELECT paywall_id, placement_key, position, CAST(NULL AS TEXT), CAST(NULL AS TEXT) FROM placement_rules
                WHERE app_id = \(appID) AND paywall_id IN (\(SQL.list(slice)))
                UNION ALL SELECT v.paywall_id, p.key, CAST(NULL AS BIGINT), e.id, e.name FROM placements p
                JOIN experiments e ON e.app_id = p.app_id AND e.id = p.experiment_id
                JOIN experiment_variants v ON v.experiment_id = e.id
                WHERE p.app_id = \(appID) AND e.status <> 'stopped' AND v.paywall_id IN (\(SQL.list(slice)))
                UNION ALL SELECT v.paywall_id, r.placement_key, r.position, e.id, e.name FROM placement_rules r
                JOIN experiments e ON e.app_id = r.app_id AND e.id = r.experiment_id
                JOIN experiment_variants v ON v.experiment_id = e.id
                WHERE r.app_id = \(appID) AND e.status <> 'stopped' AND v.paywall_id IN (\(SQL.list(slice)))
                """)
            {
                let rule: Int64? = try row.get(2)
                references[try row.get(0), default: []].append(
                    PlacementReference(
                        placement: try row.get(1), rule: rule.map { Int($0) }, experimentID: try row.get(3),
                        experimentName: try row.get(4)))
            }
        }
        return references.mapValues { found in
            var chosen: [PlacementReference] = []
            for reference in found.sorted(by: {
                ($0 < $1) || (!($1 < $0) && $0.experimentID != nil && $1.experimentID == nil)
            }) {
                if let last = chosen.last, last.placement == reference.placement, last.rule == reference.rule {
                    continue
                }
                chosen.append(reference)
            }
            return chosen
        }
    }

    func keys(appID: String, experimentID: String) throws -> [String] {
        try db.rows(
            """
            SELECT key FROM placements WHERE app_id = \(appID) AND experiment_id = \(experimentID)
            UNION SELECT placement_key FROM placement_rules WHERE app_id = \(appID) AND experiment_id = \(experimentID) ORDER BY 1
            """
        ).map { try $0.get(0) }
    }

    func retarget(appID: String, experimentID: String, to paywallID: String, now: Int64) throws {
        try db.run(
            "UPDATE placements SET paywall_id = \(paywallID), experiment_id = NULL, updated_at = greatest(updated_at, \(now)) WHERE app_id = \(appID) AND experiment_id = \(experimentID)"
        )
        try db.run(
            "UPDATE placement_rules SET paywall_id = \(paywallID), experiment_id = NULL WHERE app_id = \(appID) AND experiment_id = \(experimentID)"
        )
    }
}
