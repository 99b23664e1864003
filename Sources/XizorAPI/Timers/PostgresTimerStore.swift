import PostgresStorage
import Storage

struct PostgresTimerStore: TimerStore {
    let db: PGConnection

    func start(appID: String, subscriberID: String, paywallID: String, nodeID: String, now: Int64) throws -> (
        startedAt: Int64, created: Bool
    ) {
        try db.execute(
            """
            INSERT INTO timer_starts (app_id, subscriber_id, paywall_id, node_id, started_at) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT DO NOTHING
            """, [appID, subscriberID, paywallID, nodeID, now])
        let created = db.changes == 1
        guard
            let startedAt: Int64 = try db.queryOne(
                """
                SELECT started_at FROM timer_starts WHERE app_id = $1 AND subscriber_id = $2 AND paywall_id = $3 AND node_id = $4
                """, [appID, subscriberID, paywallID, nodeID])?.get(0)
        else {
            throw StoreInconsistency(detail: "the timer start just written is not there")
        }
        return (startedAt, created)
    }
}
