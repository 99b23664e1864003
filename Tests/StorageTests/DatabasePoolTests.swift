import Foundation
import Synchronization
import Testing

@testable import Storage

@Suite struct DatabasePoolTests {
    @Test func writeReturnsResultAndRollsBackOnError() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("p.sqlite"))
        try pool.write { db in try db.execute("CREATE TABLE t (v INTEGER NOT NULL) STRICT") }
        let id = try pool.write { db -> Int64 in
            try db.execute("INSERT INTO t VALUES (1)")
            return db.lastInsertRowID
        }
        #expect(id == 1)
        #expect(throws: Boom.self) {
            try pool.write { db in
                try db.execute("INSERT INTO t VALUES (2)")
                throw Boom()
            }
        }
        // A write nested in a write is a savepoint of the outer one.
        try pool.write { db in
            try db.execute("INSERT INTO t VALUES (3)")
            #expect(throws: Boom.self) {
                try pool.write { db in
                    try db.execute("INSERT INTO t VALUES (4)")
                    throw Boom()
                }
            }
        }
        let values: [Int] = try pool.read { db in try db.query("SELECT v FROM t ORDER BY v").map { try $0.get(0) } }
        #expect(values == [1, 3])
        let metrics = pool.metrics.snapshot()
        #expect(metrics.writesCommitted == 3)
        #expect(metrics.writesFailed == 1)
        #expect(metrics.writeLatencyBuckets.last == 4)
        #expect(metrics.reads == 1)
    }

    @Test func readersSeeASnapshotWhileTheWriterWrites() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(
            path: directory.file("p.sqlite"), configuration: DatabaseConfiguration(readConnections: 2))
        try pool.write { db in
            try db.execute("CREATE TABLE t (v INTEGER) STRICT")
            try db.execute("INSERT INTO t VALUES (1)")
        }
        let insideWrite = DispatchSemaphore(value: 0)
        let releaseWrite = DispatchSemaphore(value: 0)
        let writerDone = DispatchSemaphore(value: 0)
        let writerFailure = Locked<String?>(nil)
        Thread.detachNewThread {
            do {
                try pool.write { db in
                    try db.execute("INSERT INTO t VALUES (2)")
                    insideWrite.signal()
                    releaseWrite.wait()
                }
            } catch {
                writerFailure.update { $0 = "\(error)" }
            }
            writerDone.signal()
        }
        insideWrite.wait()
        // The write transaction is open and uncommitted: readers are not blocked and see the old state.
        let during: Int = try pool.read { db in try db.queryOne("SELECT count(*) FROM t")?.get(0) ?? -1 }
        #expect(during == 1)
        releaseWrite.signal()
        writerDone.wait()
        #expect(writerFailure.value == nil)
        let after: Int = try pool.read { db in try db.queryOne("SELECT count(*) FROM t")?.get(0) ?? -1 }
        #expect(after == 2)
    }

    @Test func concurrentReadersAndWritersNeverSeeBusy() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(
            path: directory.file("p.sqlite"), configuration: DatabaseConfiguration(readConnections: 3))
        try pool.write { db in try db.execute("CREATE TABLE t (n INTEGER PRIMARY KEY, doubled INTEGER NOT NULL) STRICT")
        }
        let failures = Locked<[String]>([])
        let writers = 4
        let writesEach = 50
        let readers = 4
        DispatchQueue.concurrentPerform(iterations: writers + readers) { worker in
            do {
                if worker < writers {
                    for i in 0..<writesEach {
                        let n = worker * 1000 + i
                        try pool.write { db in try db.execute("INSERT INTO t VALUES (?, ?)", [n, n * 2]) }
                    }
                } else {
                    for _ in 0..<100 {
                        // Every snapshot is consistent: each row's invariant holds.
                        try pool.read { db in
                            let bad: Int =
                                try db.queryOne("SELECT count(*) FROM t WHERE doubled <> n * 2")?.get(0) ?? -1
                            if bad != 0 { failures.update { $0.append("inconsistent row") } }
                        }
                    }
                }
            } catch {
                failures.update { $0.append("\(error)") }
            }
        }
        #expect(failures.value == [])
        let count: Int = try pool.read { db in try db.queryOne("SELECT count(*) FROM t")?.get(0) ?? -1 }
        #expect(count == writers * writesEach)
        #expect(pool.metrics.snapshot().writesCommitted == UInt64(writers * writesEach + 1))
    }

    @Test func readConnectionsCannotWrite() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("p.sqlite"))
        try pool.write { db in try db.execute("CREATE TABLE t (v INTEGER) STRICT") }
        let error = #expect(throws: SQLiteError.self) {
            try pool.read { db in try db.execute("INSERT INTO t VALUES (1)") }
        }
        #expect(error?.primaryCode == 8)  // SQLITE_READONLY
    }

    @Test func writerWaitsOutAnotherProcessHoldingTheLock() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("p.sqlite")
        // Retries back off up to 250 ms each: 20 of them outlast any scheduling delay of a loaded machine.
        let pool = try DatabasePool(
            path: path, configuration: DatabaseConfiguration(busyTimeoutMs: 20, writeBusyRetries: 20))
        try pool.write { db in try db.execute("CREATE TABLE t (v INTEGER) STRICT") }
        // Another connection (as another process would) holds the write lock for a while.
        let other = Handover(try Database(path: path))
        try other.value.execute("BEGIN IMMEDIATE")
        let released = DispatchSemaphore(value: 0)
        // A thread of its own, not a global queue whose threads parallel tests may be blocking.
        Thread.detachNewThread {
            usleep(120_000)
            try? other.value.execute("COMMIT")
            released.signal()
        }
        try pool.write { db in try db.execute("INSERT INTO t VALUES (1)") }
        released.wait()
        #expect(pool.metrics.snapshot().busyRetries >= 1)
        let count: Int = try pool.read { db in try db.queryOne("SELECT count(*) FROM t")?.get(0) ?? -1 }
        #expect(count == 1)
    }

    @Test func closedPoolRefusesWork() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("p.sqlite"))
        pool.close()
        #expect(throws: SQLiteError.self) { try pool.read { _ in 1 } }
        #expect(throws: SQLiteError.self) { try pool.write { db in try db.execute("SELECT 1") } }
    }
}

@Suite struct NestedReadTests {
    @Test func nestedReadReusesTheSnapshotInsteadOfDeadlocking() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(
            path: directory.file("p.sqlite"), configuration: DatabaseConfiguration(readConnections: 1))
        try pool.write { db in try db.execute("CREATE TABLE t (v INTEGER) STRICT") }
        let counts: (Int, Int) = try pool.read { outer in
            let before: Int = try outer.queryOne("SELECT count(*) FROM t")?.get(0) ?? -1
            try pool.write { db in try db.execute("INSERT INTO t VALUES (1)") }
            let inner: Int = try pool.read { db in try db.queryOne("SELECT count(*) FROM t")?.get(0) ?? -1 }
            return (before, inner)
        }
        #expect(counts == (0, 0))  // same snapshot as the outer read
        let after: Int = try pool.read { db in try db.queryOne("SELECT count(*) FROM t")?.get(0) ?? -1 }
        #expect(after == 1)
    }
}

@Suite struct TwoPoolsTests {
    /// Two pools on one file stand in for two processes (`serve` and `xizor apps create`): each
    /// has its own writer, so they contend on SQLite's file lock, and the busy timeout absorbs it.
    @Test func twoWritersOnOneFileNeverSeeBusy() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("shared.sqlite")
        let first = try DatabasePool(path: path, configuration: DatabaseConfiguration(readConnections: 1))
        try first.write { db in
            try db.execute("CREATE TABLE t (pool INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (pool, n)) STRICT")
        }
        let second = try DatabasePool(path: path, configuration: DatabaseConfiguration(readConnections: 1))
        let pools = [first, second]
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            let pool = pools[worker % 2]
            for n in 0..<100 {
                do {
                    try pool.write { db in try db.execute("INSERT INTO t VALUES (?, ?)", [worker, n]) }
                } catch {
                    failures.update { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.value == [])
        let count: Int = try second.read { db in try db.queryOne("SELECT count(*) FROM t")?.get(0) ?? -1 }
        #expect(count == 400)
    }
}
