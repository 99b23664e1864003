import PostgresStorage
import Storage
import XizorDomain

/// Writes a batch of events and answers how many were new. The one part of the events' store kept
/// per database: it runs for every event ingested, inside the writer's transaction, so each
/// database gets its fastest statement (SQLite binds by type into cached multi-row inserts, without
/// the boxed `SQL` values; PostgreSQL sends one array per column to one `unnest` insert). Both
/// answer a retried event with nothing new: same app and id on SQLite; same app, id and timestamp
/// on PostgreSQL, whose events are partitioned by month of the timestamp (postgres/0018: every
/// unique key of a partitioned table holds its partition key).
protocol EventIngest {
    func insert(appID: String, _ events: ArraySlice<StoredEvent>, receivedAt: Int64) throws -> Int
}

/// The columns of an event row, in the order both ingests bind them.
private let eventColumns = """
    app_id, id, name, occurred_at, received_at, placement, paywall_id, version, subscriber_id,
    context, properties, experiment_id, variant, environment
    """
private let columnCount = 14

struct SQLiteEventIngest: EventIngest {
    let db: Database

    /// In chunks of `EventInsertChunks`: seven cached statement shapes, whatever the batch sizes.
    func insert(appID: String, _ events: ArraySlice<StoredEvent>, receivedAt: Int64) throws -> Int {
        var inserted = 0
        for range in EventInsertChunks.ranges(count: events.count) {
            let start = events.startIndex
            inserted += try insert(
                appID: appID, chunk: events[(start + range.lowerBound)..<(start + range.upperBound)],
                receivedAt: receivedAt)
        }
        return inserted
    }

    private func insert(appID: String, chunk: ArraySlice<StoredEvent>, receivedAt: Int64) throws -> Int {
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

/// One statement for any batch: each column goes as one array parameter, `unnest` turns them back
/// into rows. Against the multi-row `VALUES` it replaces (14 parameters per row, in up to seven
/// statement shapes per batch) PostgreSQL binds 14 parameters a batch and plans one statement
/// (docs/benchmarks.md, "PostgreSQL beside SQLite").
struct PostgresEventIngest: EventIngest {
    let db: PGConnection

    private static let sql = """
        INSERT INTO events (\(eventColumns))
        SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::text[], $7::text[],
                             $8::bigint[], $9::text[], $10::jsonb[], $11::jsonb[], $12::text[], $13::text[], $14::text[])
        ON CONFLICT (app_id, id, occurred_at) DO NOTHING
        """

    func insert(appID: String, _ events: ArraySlice<StoredEvent>, receivedAt: Int64) throws -> Int {
        guard !events.isEmpty else { return 0 }
        var columns = (0..<columnCount).map { _ in PGArrayLiteral() }
        for event in events {
            columns[0].append(appID)
            columns[1].append(event.id)
            columns[2].append(event.name)
            columns[3].append(event.occurredAt)
            columns[4].append(receivedAt)
            columns[5].append(event.placement)
            columns[6].append(event.paywallID)
            columns[7].append(event.version.map(Int64.init))
            columns[8].append(event.subscriberID)
            columns[9].append(event.context)
            columns[10].append(event.properties)
            columns[11].append(event.experimentID)
            columns[12].append(event.variant)
            columns[13].append(event.environment.rawValue)
        }
        try db.execute(Self.sql, columns.map(\.literal))
        return db.changes
    }
}

/// A one-dimensional array in PostgreSQL's text input form: `{"a","b\"c",NULL,12}`. Text elements
/// are always quoted (so `NULL`, braces and commas inside stay text), with `"` and `\` escaped.
struct PGArrayLiteral {
    private(set) var text = "{"
    private var empty = true

    private mutating func separate() {
        if empty { empty = false } else { text.append(",") }
    }

    mutating func append(_ value: String?) {
        separate()
        guard let value else {
            text.append("NULL")
            return
        }
        text.append("\"")
        if value.utf8.contains(where: { $0 == 0x22 || $0 == 0x5C }) {
            for character in value.unicodeScalars {
                if character == "\"" || character == "\\" { text.unicodeScalars.append("\\") }
                text.unicodeScalars.append(character)
            }
        } else {
            text.append(value)
        }
        text.append("\"")
    }

    mutating func append(_ value: Int64?) {
        separate()
        text.append(value.map(String.init) ?? "NULL")
    }

    /// The literal, closed.
    var literal: String { text + "}" }
}
