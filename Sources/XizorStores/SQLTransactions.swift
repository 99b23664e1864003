import Storage
import XizorDomain

/// How both `DataStore`s run a transaction, written once: the body is handed an `SQLTransaction`
/// over the connection the pool lends (`lend`: its `read` or `write`), with the database's own way
/// of writing event rows, and failures come out as `DataStore` promises (a statement stopped at its
/// time limit as `ServiceError.timeLimit`, one the schema refused as 422, any other as 503).
struct SQLTransactions<Connection: SQLConnection>: Sendable {
    let ingest: @Sendable (Connection) -> any EventIngest

    func run<T>(
        _ lend: ((Connection) throws -> T) throws -> T, timeLimit milliseconds: Int? = nil,
        _ body: (any StoreTransaction) throws -> T
    ) throws -> T {
        try StoreErrors.mapped(isConstraintViolation: Connection.constraintViolation) {
            do {
                // Both closures are only called before `run` returns; Swift's rule against handing
                // one non-escaping closure into another is about re-entrant mutation, which neither does.
                return try withoutActuallyEscaping(body) { body in
                    try lend { connection in
                        let transaction = SQLTransaction(db: connection, ingest: ingest(connection))
                        guard let milliseconds else { return try body(transaction) }
                        return try connection.withTimeLimit(milliseconds: milliseconds) { try body(transaction) }
                    }
                }
            } catch let error where Connection.isStoppedAtTimeLimit(error) {
                guard let milliseconds else { throw error }
                throw ServiceError.timeLimit(milliseconds)
            }
        }
    }
}
