import PostgresStorage
import Storage

struct PostgresSubscriberStore: SubscriberStore {
    let db: PGConnection

    func attributes(appID: String, subscriberID: String) throws -> StoredSubscriberAttributes? {
        try db.queryOne(
            "SELECT attributes, updated_at FROM subscriber_attributes WHERE app_id = $1 AND subscriber_id = $2",
            [appID, subscriberID]
        )
        .map { StoredSubscriberAttributes(attributes: try $0.get(0), updatedAt: try $0.get(1)) }
    }

    func setAttributes(appID: String, subscriberID: String, attributes: String, now: Int64) throws {
        try db.execute(
            """
            INSERT INTO subscriber_attributes (app_id, subscriber_id, attributes, updated_at) VALUES ($1, $2, $3, $4)
            ON CONFLICT (app_id, subscriber_id) DO UPDATE SET attributes = excluded.attributes,
                updated_at = greatest(subscriber_attributes.updated_at, excluded.updated_at)
            """, [appID, subscriberID, attributes, now])
    }

    func deleteAttributes(appID: String, subscriberID: String) throws -> Bool {
        try db.execute(
            "DELETE FROM subscriber_attributes WHERE app_id = $1 AND subscriber_id = $2", [appID, subscriberID])
        return db.changes == 1
    }

    func delete(appID: String, subscriberID: String) throws -> SubscriberDeletion {
        var removed = SubscriberDeletion(attributes: 0, timers: 0, events: 0)
        try db.execute(
            "DELETE FROM subscriber_attributes WHERE app_id = $1 AND subscriber_id = $2", [appID, subscriberID])
        removed.attributes = db.changes
        try db.execute("DELETE FROM timer_starts WHERE app_id = $1 AND subscriber_id = $2", [appID, subscriberID])
        removed.timers = db.changes
        return removed
    }

    func deleteEvents(appID: String, subscriberID: String, atMost: Int) throws -> Int {
        try db.execute(
            """
            DELETE FROM events WHERE (app_id, id) IN
              (SELECT app_id, id FROM events WHERE app_id = $1 AND subscriber_id = $2 LIMIT $3)
            """, [appID, subscriberID, Int64(atMost)])
        return db.changes
    }
}
