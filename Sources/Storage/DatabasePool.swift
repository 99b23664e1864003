import CSQLite
import Dispatch
import Foundation

/// The process's access to one database file: a single writer connection behind a serial queue
/// (SQLite allows one writer at a time anyway; queuing here means callers never see SQLITE_BUSY
/// from each other) and a few read-only connections that, thanks to WAL, read a consistent
/// snapshot while the writer writes.
///
/// Sendable by construction: each connection is only touched by the thread that holds it (the
/// writer inside `writerQueue`, a reader while checked out under `readerLock`).
public final class DatabasePool: @unchecked Sendable {
    public let path: String
    public let configuration: DatabaseConfiguration
    public let metrics = StorageMetrics()

    private let writer: Database
    private let writerQueue = DispatchQueue(label: "xizor.storage.writer")
    private let onWriterQueue = DispatchSpecificKey<Bool>()

    private let readerLock = NSLock()
    private var idleReaders: [Database]
    private let readerSlots: DispatchSemaphore
    private var isClosed = false

    /// Opens (creating when missing) the database at `path`: the writer first, so the file exists
    /// and is in WAL mode before the read-only connections open it.
    public init(path: String, configuration: DatabaseConfiguration = DatabaseConfiguration()) throws(SQLiteError) {
        self.path = path
        self.configuration = configuration
        writer = try Database(path: path, mode: .readWriteCreate, configuration: configuration)
        let count = max(1, configuration.readConnections)
        var readers: [Database] = []
        for _ in 0..<count {
            readers.append(try Database(path: path, mode: .readOnly, configuration: configuration))
        }
        idleReaders = readers
        readerSlots = DispatchSemaphore(value: count)
        writerQueue.setSpecific(key: onWriterQueue, value: true)
    }

    /// Runs `body` on the writer connection inside a `BEGIN IMMEDIATE` transaction, committed when
    /// it returns and rolled back when it throws; returns its result. Calls are serialized. Called
    /// from inside another `write`, it runs as a savepoint of the outer transaction. Inside `body`,
    /// read through `db`: a `read` there uses another connection and does not see this write yet.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        if DispatchQueue.getSpecific(key: onWriterQueue) == true {
            return try writer.savepoint(body)
        }
        let start = DispatchTime.now().uptimeNanoseconds
        return try writerQueue.sync {
            var committed = false
            defer {
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                metrics.recordWrite(seconds: seconds, committed: committed)
            }
            try beginImmediate()
            let result: T
            do {
                result = try body(writer)
                try writer.execute("COMMIT")
            } catch {
                writer.rollbackQuietly()
                throw error
            }
            committed = true
            return result
        }
    }

    /// Runs `body` on the writer connection with no transaction around it, for work that manages
    /// its own or cannot run in one (VACUUM, `PRAGMA wal_checkpoint`).
    public func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        if DispatchQueue.getSpecific(key: onWriterQueue) == true { return try body(writer) }
        return try writerQueue.sync { try body(writer) }
    }

    /// `BEGIN IMMEDIATE` with retries: the busy timeout already waits for another *process*
    /// holding the write lock; if even that runs out, back off and try again a few times.
    private func beginImmediate() throws(SQLiteError) {
        var attempt = 0
        while true {
            do {
                try writer.execute("BEGIN IMMEDIATE")
                return
            } catch  where error.kind == .busy && attempt < configuration.writeBusyRetries {
                attempt += 1
                metrics.recordBusyRetry()
                usleep(useconds_t(min(attempt * 50_000, 250_000)))
            }
        }
    }

    /// Runs `body` on a read-only connection inside one read transaction, so every query in it sees
    /// the same snapshot. Blocks while all read connections are busy. A `read` nested in another
    /// on the same thread reuses the outer connection and snapshot (instead of deadlocking on a
    /// second one).
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        let threadKey = readerThreadKey
        if let current = Thread.current.threadDictionary[threadKey] as? Database {
            return try body(current)
        }
        let reader = try checkOutReader()
        defer { checkIn(reader) }
        metrics.recordRead()
        try reader.execute("BEGIN DEFERRED")
        Thread.current.threadDictionary[threadKey] = reader
        defer { Thread.current.threadDictionary.removeObject(forKey: threadKey) }
        do {
            let result = try body(reader)
            try reader.execute("COMMIT")
            return result
        } catch {
            reader.rollbackQuietly()
            throw error
        }
    }

    /// Per-pool key under which a thread records the read connection it holds.
    private var readerThreadKey: String { "xizor.storage.reader.\(UInt(bitPattern: ObjectIdentifier(self).hashValue))" }

    /// Runs `body` with a read-only connection and no transaction (e.g. the online backup, which
    /// manages its own locking).
    func withReader<T>(_ body: (Database) throws -> T) throws -> T {
        let reader = try checkOutReader()
        defer { checkIn(reader) }
        return try body(reader)
    }

    private func checkOutReader() throws(SQLiteError) -> Database {
        readerSlots.wait()
        readerLock.lock()
        defer { readerLock.unlock() }
        guard !isClosed, let reader = idleReaders.popLast() else {
            readerSlots.signal()
            throw .misuse("database pool for \(path) is closed")
        }
        return reader
    }

    private func checkIn(_ reader: Database) {
        readerLock.lock()
        idleReaders.append(reader)
        readerLock.unlock()
        readerSlots.signal()
    }

    /// Closes every connection once in-flight work has finished (the writer checkpoints the WAL
    /// when it closes last). Later calls throw `misuse`.
    public func close() {
        for _ in 0..<max(1, configuration.readConnections) { readerSlots.wait() }
        readerLock.lock()
        isClosed = true
        let readers = idleReaders
        idleReaders.removeAll()
        readerLock.unlock()
        for reader in readers { reader.close() }
        for _ in 0..<max(1, configuration.readConnections) { readerSlots.signal() }
        writerQueue.sync { writer.close() }
    }
}
