/// One result row copied out of SQLite, so it stays valid after the statement moves on and can be
/// handed to another thread.
public struct Row: Sendable, Equatable {
    /// The column names, shared by every row of one result.
    public let columns: [String]
    public let values: [SQLValue]

    public init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    public subscript(index: Int) -> SQLValue { values[index] }

    /// The value of column `index`, converted to `T`; a typed error when it has another type.
    public func get<T: SQLColumnValue>(_ index: Int, as type: T.Type = T.self) throws(SQLiteError) -> T {
        guard values.indices.contains(index) else { throw .misuse("no column \(index) in a row of \(values.count)") }
        return try T(sqlValue: values[index])
    }

    /// The value of the column named `name` (as in the SELECT list), converted to `T`.
    public func get<T: SQLColumnValue>(_ name: String, as type: T.Type = T.self) throws(SQLiteError) -> T {
        guard let index = columns.firstIndex(of: name) else { throw .misuse("no column named \(name)") }
        return try T(sqlValue: values[index])
    }
}
