import CSQLite
import Dispatch

extension Database {
    /// Runs `body` with every statement it steps stopped once `milliseconds` have passed: SQLite's
    /// progress handler, called every 1,000 virtual-machine instructions, compares the monotonic
    /// clock with the deadline and interrupts the statement, which then fails with
    /// `SQLITE_INTERRUPT` (`SQLiteError.isInterrupted`). So a report over a large history cannot hold
    /// one of the few read connections for longer than its bound, whatever the tenant asked for.
    public func withTimeLimit<T>(milliseconds: Int, _ body: () throws -> T) throws -> T {
        precondition(milliseconds > 0, "a time limit is positive")
        guard let handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "the connection is closed") }
        let deadline = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
        deadline.initialize(to: DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000)
        sqlite3_progress_handler(
            handle, 1_000,
            { context in
                guard let context else { return 0 }
                return DispatchTime.now().uptimeNanoseconds > context.load(as: UInt64.self) ? 1 : 0
            }, deadline)
        defer {
            sqlite3_progress_handler(handle, 0, nil, nil)
            deadline.deallocate()
        }
        return try body()
    }
}

extension SQLiteError {
    /// A statement stopped by `Database.withTimeLimit` (or `sqlite3_interrupt`).
    public var isInterrupted: Bool { primaryCode == SQLITE_INTERRUPT }
}
