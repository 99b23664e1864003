import Storage
import XizorDomain

struct SQLSubscriberStore: SubscriberStore {
    let db: any SQLConnection

    func attributes(appID: String, subscriberID: String) throws -> StoredSubscriberAttributes? {
        try db.row(
            "SELECT attributes, updated_at FROM subscriber_attributes WHERE app_id = \(appID) AND subscriber_id = \(subscriberID)"
        )
        .map { StoredSubscriberAttributes(attributes: try $0.get(0), updatedAt: try $0.get(1)) }
    }

    func attributeSample(appID: String, limit: Int) throws -> [String] {
        try db.rows("SELECT attributes FROM subscriber_attributes WHERE app_id = \(appID) LIMIT \(limit)").map {
            try $0.get(0)
        }
    }

    func contextSample(appID: String, limit: Int) throws -> [String] {
        // CAST: the column is TEXT on SQLite and JSONB on PostgreSQL; both read it back as text.
        try db.rows(
            "SELECT CAST(context AS TEXT) FROM events WHERE app_id = \(appID) AND context IS NOT NULL LIMIT \(limit)"
        ).map { try $0.get(0) }
    }

    func setAttributes(appID: String, subscriberID: String, attributes: String, now: Int64) throws {
        try db.run(
            """
            INSERT INTO subscriber_attributes (app_id, subscriber_id, attributes, updated_at) VALUES (\(appID), \(subscriberID), \(attributes), \(now))
            ON CONFLICT (app_id, subscriber_id) DO UPDATE SET attributes = excluded.attributes,
                updated_at = greatest(subscriber_attributes.updated_at, excluded.updated_at)
            """)
    }

    func deleteAttributes(appID: String, subscriberID: String) throws -> Bool {
        try db.run("DELETE FROM subscriber_attributes WHERE app_id = \(appID) AND subscriber_id = \(subscriberID)")
        return db.changes == 1
    }

    func delete(appID: String, subscriberID: String) throws -> SubscriberDeletion {
        var removed = SubscriberDeletion(attributes: 0, timers: 0, events: 0)
        try db.run("DELETE FROM subscriber_attributes WHERE app_id = \(appID) AND subscriber_id = \(subscriberID)")
        removed.attributes = db.changes
        try db.run("DELETE FROM timer_starts WHERE app_id = \(appID) AND subscriber_id = \(subscriberID)")
        removed.timers = db.changes
        return removed
    }

    func deleteEvents(appID: String, _ events: [(id: String, occurredAt: Int64)]) throws -> Int {
        guard !events.isEmpty else { return 0 }
        var rows: SQL = ""
        for (index, event) in events.enumerated() {
            // Typed: PostgreSQL reads untyped parameters in a VALUES list as text.
            rows += "\(raw: index == 0 ? "" : ", ")(\(event.id), CAST(\(event.occurredAt) AS BIGINT))"
        }
        try db.run("DELETE FROM events WHERE app_id = \(appID) AND (id, occurred_at) IN (VALUES \(rows))")
        return db.changes
    }
}
