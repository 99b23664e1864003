import Foundation
import Testing

@testable import Storage

@Suite struct TransactionTests {
    let directory: TemporaryDirectory
    let db: Database

    init() throws {
        directory = try TemporaryDirectory()
        db = try Database(path: directory.file("t.sqlite"))
        try db.execute("CREATE TABLE t (v TEXT PRIMARY KEY) STRICT")
    }

    func values() throws -> [String] { try db.query("SELECT v FROM t ORDER BY v").map { try $0.get(0) } }

    @Test func commitAndRollback() throws {
        try db.transaction { db in try db.execute("INSERT INTO t VALUES ('a')") }
        #expect(throws: Boom.self) {
            try db.transaction { db in
                try db.execute("INSERT INTO t VALUES ('b')")
                throw Boom()
            }
        }
        #expect(try values() == ["a"])
        #expect(!db.isInTransaction)
    }

    @Test func nestedSavepoints() throws {
        try db.transaction { db in
            try db.execute("INSERT INTO t VALUES ('outer')")
            try db.transaction { db in  // nested: a savepoint
                try db.execute("INSERT INTO t VALUES ('kept')")
                #expect(throws: Boom.self) {
                    try db.savepoint { db in
                        try db.execute("INSERT INTO t VALUES ('dropped')")
                        try db.savepoint { db in try db.execute("INSERT INTO t VALUES ('dropped-too')") }
                        throw Boom()
                    }
                }
            }
            // A constraint failure inside a savepoint leaves the outer transaction usable.
            let duplicate = #expect(throws: SQLiteError.self) {
                try db.savepoint { db in try db.execute("INSERT INTO t VALUES ('outer')") }
            }
            #expect(duplicate?.kind == .unique)
            try db.execute("INSERT INTO t VALUES ('after')")
        }
        #expect(try values() == ["after", "kept", "outer"])
    }

    @Test func constraintErrorsNameTheirKindCodeAndSQL() throws {
        try db.execute("INSERT INTO t VALUES ('x')")
        let error = #expect(throws: SQLiteError.self) { try db.execute("INSERT INTO t VALUES (?)", ["x"]) }
        #expect(error?.kind == .unique)
        #expect(error?.code == 1555)  // SQLITE_CONSTRAINT_PRIMARYKEY
        #expect(error?.isConstraintViolation == true)
        #expect(error?.message.contains("t.v") == true)
        #expect(error?.sql == "INSERT INTO t VALUES (?)")
        #expect(error?.description.contains("INSERT INTO t") == true)
    }

    @Test func outerRollbackUndoesReleasedSavepoints() throws {
        #expect(throws: Boom.self) {
            try db.transaction { db in
                try db.savepoint { db in try db.execute("INSERT INTO t VALUES ('inner')") }
                throw Boom()
            }
        }
        #expect(try values() == [])
    }

    @Test func immediateTransactionTakesTheWriteLock() throws {
        let other = try Database(
            path: directory.file("t.sqlite"), configuration: DatabaseConfiguration(busyTimeoutMs: 50))
        try db.transaction(.immediate) { _ in
            let error = #expect(throws: SQLiteError.self) { try other.execute("BEGIN IMMEDIATE") }
            #expect(error?.kind == .busy)
        }
        try other.execute("BEGIN IMMEDIATE")
        try other.execute("ROLLBACK")
    }
}
