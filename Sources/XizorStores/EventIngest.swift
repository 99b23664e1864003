import PostgresStorage
import Storage
import XizorDomain

/// Writes one chunk of events (a shape of `EventInsertChunks`) and answers how many were new. The
/// one part of the events' store kept per database: it runs for every event ingested, inside the
/// writer's transaction, so each database gets its fastest statement (SQLite binds by type into a
/// cached statement, without the boxed `SQL` values; PostgreSQL casts the JSON columns to `jsonb`).
/// Both answer a retried event (same app, same id) with nothing new.
protocol EventIngest {
    func insert(appID: String, _ chunk: ArraySlice<StoredEvent>, receivedAt: Int64) throws -> Int
}

/// The columns of an event row, in the order both ingests bind them.
private let eventColumns = """
    app_id, id, name, occurred_at, received_at, placement, paywall_id, version, subscriber_id,
    context, properties, experiment_id, variant, environment
    """
private let columnCount = 14

struct SQLiteEventIngest: EventIngest {
    let db: Database

    func insert(appID: String, _ chunk: ArraySlice<StoredEvent>, receivedAt: Int64) throws -> Int {
        guard let sql = Self.insertSQL[chunk.count] else {
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
        precondition(parameter == Int32(chunk.count * columnCount), "every column of every row is bound")
        try statement.run()
        return db.changes
    }

    /// The INSERT of each chunk shape, built once.
    private static let insertSQL: [Int: String] = Dictionary(
        uniqueKeysWithValues: EventInsertChunks.shapes.map { rows in
            let row = "(" + Array(repeating: "?", count: columnCount).joined(separator: ", ") + ")"
            let values = Array(repeating: row, count: rows).joined(separator: ", ")
            return (rows, "INSERT INTO events (\(eventColumns)) VALUES \(values) ON CONFLICT (app_id, id) DO NOTHING")
        })
}

struct PostgresEventIngest: EventIngest {
    let db: PGConnection

    func insert(appID: String, _ chunk: ArraySlice<StoredEvent>, receivedAt: Int64) throws -> Int {
        let values = (0..<chunk.count).map { r in
            let n = r * columnCount
            return
                "($\(n + 1), $\(n + 2), $\(n + 3), $\(n + 4), $\(n + 5), $\(n + 6), $\(n + 7), $\(n + 8), $\(n + 9), $\(n + 10)::jsonb, $\(n + 11)::jsonb, $\(n + 12), $\(n + 13), $\(n + 14))"
        }.joined(separator: ", ")
        var bindings: [any SQLBindable] = []
        bindings.reserveCapacity(chunk.count * columnCount)
        for event in chunk {
            bindings += [
                appID, event.id, event.name, event.occurredAt, receivedAt, event.placement, event.paywallID,
                event.version, event.subscriberID, event.context, event.properties, event.experimentID, event.variant,
                event.environment.rawValue,
            ]
        }
        try db.execute(
            "INSERT INTO events (\(eventColumns)) VALUES \(values) ON CONFLICT (app_id, id) DO NOTHING", bindings)
        return db.changes
    }
}
