import Storage
import XizorDomain

struct SQLTimerStore: TimerStore {
    let db: any SQLConnection

    func start(appID: String, subscriberID: String, paywallID: String, nodeID: String, now: Int64) throws -> (
        startedAt: Int64, created: Bool
    ) {
        try db.run(
            """
            INSERT INTO timer_starts (app_id, subscriber_id, paywall_id, node_id, started_at) VALUES (\(appID), \(subscriberID), \(paywallID), \(nodeID), \(now))
            ON CONFLICT DO NOTHING
            """)
        let created = db.changes == 1
        guard
            let startedAt: Int64 = try db.row(
                """
                SELECT started_at FROM timer_starts WHERE app_id = \(appID) AND subscriber_id = \(subscriberID) AND paywall_id = \(paywallID) AND node_id = \(nodeID)
                """)?.get(0)
        else {
            throw StoreInconsistency(detail: "the timer start just written is not there")
        }
        return (startedAt, created)
    }
}
