import Foundation
import Storage
import Testing

@testable import PostgresStorage

@Suite struct PGPoolTests {
    struct Refused: Error {}

    @Test func writesCommitOrRollBackWhole() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let pool = try PGPool(url: db.url, size: 2)
        defer { pool.close() }
        try pool.write { c in try c.executeScript("CREATE TABLE t (n INTEGER PRIMARY KEY)") }
        try pool.write { c in try c.execute("INSERT INTO t VALUES (1)") }
        #expect(throws: Refused.self) {
            try pool.write { c in
                try c.execute("INSERT INTO t VALUES (2)")
                throw Refused()
            }
        }
        #expect(throws: PGError.self) { try pool.write { c in try c.execute("INSERT INTO t VALUES (1)") } }
        let count = try pool.read { c in try c.queryOne("SELECT count(*) FROM t")?.get(0, as: Int.self) }
        #expect(count == 1)
        #expect(pool.metrics.snapshot().writesCommitted == 2 && pool.metrics.snapshot().writesFailed == 2)
    }

    @Test func aReadSeesOneSnapshotWhileOthersWrite() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let pool = try PGPool(url: db.url, size: 3)
        defer { pool.close() }
        try pool.write { c in try c.executeScript("CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1)") }
        let (before, after) = try pool.read { c -> (Int, Int) in
            let before: Int = try c.queryOne("SELECT count(*) FROM t")?.get(0) ?? -1
            try pool.write { w in try w.execute("INSERT INTO t VALUES (2)") }
            let after: Int = try c.queryOne("SELECT count(*) FROM t")?.get(0) ?? -1
            return (before, after)
        }
        #expect(before == 1 && after == 1, "the second statement of a read still sees its snapshot")
        #expect(try pool.read { c in try c.queryOne("SELECT count(*) FROM t")?.get(0, as: Int.self) } == 2)
        #expect(throws: PGError.self) { try pool.read { c in try c.execute("INSERT INTO t VALUES (3)") } }
    }

    @Test func aConnectionTheServerClosedIsReplacedBeforeTheNextTransaction() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let pool = try PGPool(url: db.url, size: 1)
        defer { pool.close() }
        let pid: Int = try pool.read { c in try c.queryOne("SELECT pg_backend_pid()")?.get(0) ?? 0 }
        let admin = try PGConnection(url: db.url)
        defer { admin.close() }
        try admin.execute("SELECT pg_terminate_backend($1)", [pid])
        usleep(100_000)
        let again: Int = try pool.write { c in try c.queryOne("SELECT pg_backend_pid()")?.get(0) ?? 0 }
        #expect(again != pid && again != 0, "a new connection served the write")
    }

    @Test func manyThreadsShareAFewConnections() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let pool = try PGPool(url: db.url, size: 3)
        defer { pool.close() }
        try pool.write { c in try c.executeScript("CREATE TABLE t (n INTEGER PRIMARY KEY)") }
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 200) { i in
            do { try pool.write { c in try c.execute("INSERT INTO t VALUES ($1)", [i]) } } catch { failures.add() }
        }
        #expect(failures.count == 0)
        #expect(try pool.read { c in try c.queryOne("SELECT count(*) FROM t")?.get(0, as: Int.self) } == 200)
    }
}

final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() {
        lock.lock()
        n += 1
        lock.unlock()
    }
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return n
    }
}
