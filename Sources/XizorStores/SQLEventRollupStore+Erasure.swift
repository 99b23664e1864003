import Storage
import XizorDomain

/// A subscriber's erasure in the rollups (`SubscriberService.delete`): their events to take out,
/// the counts and exact sketches they leave, and their progress in each experiment arm.
extension SQLEventRollupStore {
    func events(appID: String, subscriberID: String, atMost: Int) throws -> [ErasedEvent] {
        try db.rows(
            """
            SELECT e.id, EXISTS (SELECT 1 FROM event_rollup_queue q WHERE q.app_id = e.app_id AND q.event_id = e.id
                                                                   AND q.occurred_at = e.occurred_at),
                   \(eventColumns)
            FROM events e WHERE e.app_id = \(appID) AND e.subscriber_id = \(subscriberID) LIMIT \(Int64(atMost))
            """
        ).map { row in
            let queued: Bool = try row.get(1)
            return ErasedEvent(id: try row.get(0), event: try RollupEvent(row: row, at: 2), queued: queued)
        }
    }

    func subtract(appID: String, _ rollup: EventRollup, subscriberID: String) throws {
        for (key, cell) in rollup.funnel {
            var sketch = try storedSketch(appID: appID, key)
            sketch?.remove(subscriberID)
            try db.run(
                """
                UPDATE funnel_rollups SET events = events - \(cell.events), subscribers = \(sketch?.encoded())
                WHERE app_id = \(appID) AND \(Self.cell(key))
                """)
        }
        for (key, cell) in rollup.revenue {
            let row: SQL = """
                app_id = \(appID) AND paywall_id = \(key.paywallID) AND span = \(key.span.milliseconds)
                  AND bucket = \(key.bucket) AND version = \(key.version) AND placement = \(key.placement)
                  AND environment = \(key.environment.rawValue) AND currency = \(key.currency)
                """
            try db.run(
                "UPDATE revenue_rollups SET amount = amount - \(cell.amount), purchases = purchases - \(cell.purchases) WHERE \(row)"
            )
            // A currency none of whose purchases are left is no longer answered (its amount may be a
            // rounding error away from zero).
            try db.run("DELETE FROM revenue_rollups WHERE \(row) AND purchases = 0")
        }
        for (arm, impressions) in rollup.impressions {
            try db.run(
                "UPDATE experiment_rollups SET impressions = impressions - \(impressions) WHERE app_id = \(appID) AND \(Self.arm(arm))"
            )
        }
        for (arm, currencies) in rollup.experimentRevenue {
            for (currency, cell) in currencies {
                let row: SQL = "app_id = \(appID) AND \(Self.arm(arm)) AND currency = \(currency)"
                try db.run(
                    """
                    UPDATE experiment_revenue_rollups SET amount = amount - \(cell.amount), purchases = purchases - \(cell.purchases)
                    WHERE \(row)
                    """)
                try db.run("DELETE FROM experiment_revenue_rollups WHERE \(row) AND purchases = 0")
            }
        }
    }

    func forget(appID: String, subscriberID: String) throws -> Int {
        let rows = try db.rows(
            """
            SELECT experiment_id, variant, environment, seen FROM experiment_subscribers
            WHERE app_id = \(appID) AND subscriber_id = \(subscriberID)\(raw: db.dialect.lockRowsForUpdate)
            """)
        for row in rows {
            let arm = ExperimentArm(
                experimentID: try row.get(0), variant: try row.get(1), environment: try Self.environment(row, 2))
            let seen: Int64 = try row.get(3)
            guard (0...3).contains(seen) else {
                throw StoreInconsistency(detail: "experiment_subscribers holds the progress \(seen)")
            }
            let progress = MemberProgress(rawValue: UInt8(seen))
            let opened: Int64 = progress.contains(.opened) ? 1 : 0
            let purchased: Int64 = progress.contains(.purchased) ? 1 : 0
            try db.run(
                """
                UPDATE experiment_rollups SET exposed = exposed - 1, subscribers = subscribers - \(opened),
                    exposed_converted = exposed_converted - \(purchased), converted = converted - \(opened * purchased)
                WHERE app_id = \(appID) AND \(Self.arm(arm))
                """)
        }
        try db.run(
            "DELETE FROM experiment_subscribers WHERE app_id = \(appID) AND subscriber_id = \(subscriberID)")
        return rows.count
    }
}
