import Dispatch
import Foundation
import Storage

/// The process's connections to one PostgreSQL database: up to `size`, opened on demand (the first
/// at once, so a wrong URL fails at start), each used by one thread at a time. Unlike SQLite,
/// PostgreSQL takes concurrent writers; what must not interleave is serialized by row locks inside
/// the stores' SQL (`SELECT … FOR UPDATE`), and a transaction PostgreSQL aborts as a serialization
/// failure or deadlock is run again.
public final class PGPool: @unchecked Sendable {
    public let url: String
    public let size: Int
    public let metrics = StorageMetrics()

    private let lock = NSLock()
    private var idle: [PGConnection] = []
    private var opened = 0
    private var isClosed = false
    private let slots: DispatchSemaphore
    /// Times a transaction is tried when PostgreSQL aborts it as a serialization failure or deadlock.
    static let attempts = 5

    public init(url: String, size: Int = 8) throws(PGError) {
        precondition(size > 0, "a pool holds at least one connection")
        self.url = url
        self.size = size
        slots = DispatchSemaphore(value: size)
        idle = [try PGConnection(url: url)]
        opened = 1
    }

    /// `body` in a read-only REPEATABLE READ transaction: every statement sees one snapshot.
    public func read<T>(_ body: (PGConnection) throws -> T) throws -> T {
        metrics.recordRead()
        return try transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    /// `body` in a read-write transaction, committed when it returns (durable: `synchronous_commit`
    /// stays on) and rolled back when it throws; run again when PostgreSQL aborts it as a
    /// serialization failure or deadlock.
    public func write<T>(_ body: (PGConnection) throws -> T) throws -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        var committed = false
        defer {
            metrics.recordWrite(
                seconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, committed: committed)
        }
        var attempt = 1
        while true {
            do {
                let result = try transaction("BEGIN", body)
                committed = true
                return result
            } catch let error as PGError where error.isRetryable && attempt < PGPool.attempts {
                metrics.recordBusyRetry()
                attempt += 1
                usleep(useconds_t(1000 * attempt))
            }
        }
    }

    /// `body` on a connection with no transaction around it (statements that cannot run in one).
    public func withConnection<T>(_ body: (PGConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    private func transaction<T>(_ begin: String, _ body: (PGConnection) throws -> T) throws -> T {
        var connection = try checkOut()
        do { try connection.executeScript(begin) } catch  where !connection.isHealthy {
            // An idle connection the server closed (a restart, a failover, pg_terminate_backend)
            // fails on first use, and so will its idle siblings. Nothing of the transaction ran
            // yet: drop them all and open a new one.
            checkIn(connection)
            dropIdleConnections()
            connection = try checkOut()
            do { try connection.executeScript(begin) } catch {
                checkIn(connection)
                throw error
            }
        } catch {
            checkIn(connection)
            throw error
        }
        defer { checkIn(connection) }
        do {
            let result = try body(connection)
            try connection.executeScript("COMMIT")
            return result
        } catch {
            do { try connection.executeScript("ROLLBACK") } catch {
                // A connection that cannot roll back holds an unknown transaction: close it, so
                // checkIn drops it rather than hand it to the next caller. The body's error stands.
                connection.close()
            }
            throw error
        }
    }

    private func checkOut() throws(PGError) -> PGConnection {
        slots.wait()
        lock.lock()
        if isClosed {
            lock.unlock()
            slots.signal()
            throw .misuse("the connection pool is closed")
        }
        if let connection = idle.popLast() {
            lock.unlock()
            return connection
        }
        opened += 1
        lock.unlock()
        do { return try PGConnection(url: url) } catch {
            lock.lock()
            opened -= 1
            lock.unlock()
            slots.signal()
            throw error
        }
    }

    /// Returns a connection; a broken one is closed instead and replaced on a later checkout.
    private func checkIn(_ connection: PGConnection) {
        lock.lock()
        if connection.isHealthy && !isClosed {
            idle.append(connection)
        } else {
            connection.close()
            opened -= 1
        }
        lock.unlock()
        slots.signal()
    }

    /// Closes the idle connections (the next checkouts open new ones).
    private func dropIdleConnections() {
        lock.lock()
        let dropped = idle
        idle.removeAll()
        opened -= dropped.count
        lock.unlock()
        for connection in dropped { connection.close() }
    }

    /// Closes every connection once the ones in use are returned.
    public func close() {
        for _ in 0..<size { slots.wait() }
        lock.lock()
        isClosed = true
        let connections = idle
        idle.removeAll()
        lock.unlock()
        for connection in connections { connection.close() }
        for _ in 0..<size { slots.signal() }
    }
}
