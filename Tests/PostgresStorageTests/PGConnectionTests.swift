import Foundation
import Storage
import Testing

@testable import PostgresStorage

@Suite struct PGConnectionTests {
    @Test func valuesRoundTripAsTheSQLiteLayerReadsThem() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let c = try PGConnection(url: db.url)
        defer { c.close() }
        try c.executeScript("CREATE TABLE t (i BIGINT, s TEXT, b BYTEA, f BOOLEAN, d DOUBLE PRECISION, n INTEGER)")
        let bytes: [UInt8] = [0, 1, 0x7F, 0x80, 0xFF]
        try c.execute(
            "INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6)",
            [Int64.max, "é 'quoted' \\ ünïcode", bytes, true, 2.5, Int?.none])
        #expect(c.changes == 1)
        let row = try #require(try c.queryOne("SELECT i, s, b, f, d, n, count(*) OVER () FROM t"))
        #expect(try row.get(0, as: Int64.self) == Int64.max)
        #expect(try row.get(1, as: String.self) == "é 'quoted' \\ ünïcode")
        #expect(try row.get(2, as: [UInt8].self) == bytes)
        #expect(try row.get(3, as: Bool.self) == true)
        #expect(try row.get(4, as: Double.self) == 2.5)
        #expect(try row.get(5, as: Int?.self) == nil)
        #expect(try row.get(6, as: Int.self) == 1)
        #expect(throws: SQLiteError.self) { try row.get(1, as: Int64.self) }
        let sum = try #require(try c.queryOne("SELECT sum(i / 2) FROM t"))
        #expect(try sum.get(0, as: Int64.self) == Int64.max / 2, "numeric sums of integers read as integers")
    }

    /// A result holding bytea is asked for in binary when every column has a binary reading, and it
    /// reads as the same values the text format gives; one column without (numeric) keeps the whole
    /// statement in text.
    @Test func aResultWithByteaReadsTheSameInBinaryAsInText() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let c = try PGConnection(url: db.url)
        defer { c.close() }
        let every: [UInt8] = (0...255).map { UInt8($0) }
        let columns = """
            $1::bytea, 9223372036854775807::int8, (-2)::int2, (-2147483648)::int4, 4000000000::oid, 0.1::float8,
            (-1e300)::float8, true, false, 'é ü \\ x'::text, 'ab'::varchar, 'c'::char(3), 'n'::name, NULL::bytea,
            ''::bytea, NULL::int8
            """
        let binary = "SELECT \(columns)"
        let text = "SELECT \(columns), 1::numeric"
        let read = try #require(try c.queryOne(binary, [every]))
        let asText = try #require(try c.queryOne(text, [every]))
        #expect(c.readsBinary(binary) == true)
        #expect(c.readsBinary(text) == false)
        #expect(read.values == Array(asText.values.dropLast()))
        #expect(
            read.values == [
                .blob(every), .integer(.max), .integer(-2), .integer(-2_147_483_648), .integer(4_000_000_000),
                .real(0.1), .real(-1e300), .integer(1), .integer(0), .text("é ü \\ x"), .text("ab"), .text("c  "),
                .text("n"), .null, .blob([]), .null,
            ])
        // Prepared once: the second run takes the same path.
        #expect(try c.queryOne(binary, [[UInt8]([7])])?.values.first == .blob([7]))
        // A statement without bytea stays in text.
        _ = try c.queryOne("SELECT 1::int8")
        #expect(c.readsBinary("SELECT 1::int8") == false)
    }

    @Test func constraintFailuresHaveTheSQLiteLayersKinds() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let c = try PGConnection(url: db.url)
        defer { c.close() }
        try c.executeScript(
            """
            CREATE TABLE p (id TEXT PRIMARY KEY, n INTEGER NOT NULL CHECK (n > 0));
            CREATE TABLE c (p TEXT REFERENCES p (id));
            CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'immutable'; END $$;
            CREATE TRIGGER p_immutable BEFORE DELETE ON p FOR EACH ROW EXECUTE FUNCTION refuse();
            INSERT INTO p VALUES ('a', 1);
            """)
        func kind(_ sql: String, _ bindings: [any SQLBindable] = []) -> DatabaseErrorKind? {
            do {
                try c.execute(sql, bindings)
                return nil
            } catch { return error.kind }
        }
        #expect(kind("INSERT INTO p VALUES ($1, 1)", ["a"]) == .unique)
        #expect(kind("INSERT INTO p VALUES ('b', 0)") == .check)
        #expect(kind("INSERT INTO p VALUES ('b', NULL)") == .notNull)
        #expect(kind("INSERT INTO c VALUES ('zz')") == .foreignKey)
        #expect(kind("DELETE FROM p") == .trigger)
        #expect(kind("SELEC nonsense") == .other)
        do { try c.execute("INSERT INTO p VALUES ($1, 1)", ["a"]) } catch {
            #expect(error.sqlState == "23505" && error.isConstraintViolation && error.sql != nil)
        }
    }

    @Test func aWrongURLIsAClearError() {
        #expect { try PGConnection(url: "host=127.0.0.1 port=1 user=nobody connect_timeout=2") } throws: { error in
            (error as? PGError)?.message.hasPrefix("cannot connect:") == true
        }
    }

    @Test func notificationsArriveOnTheListeningConnection() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let listener = try PGConnection(url: db.url)
        let talker = try PGConnection(url: db.url)
        defer {
            listener.close()
            talker.close()
        }
        try listener.listen("xizor_changes")
        #expect(try listener.drainNotifications() == 0)
        try talker.executeScript("NOTIFY xizor_changes; NOTIFY xizor_changes, 'x'")
        var seen = 0
        for _ in 0..<100 where seen < 2 {
            seen += try listener.drainNotifications()
            if seen < 2 { usleep(10_000) }
        }
        #expect(seen == 2)
        #expect(throws: PGError.self) { try listener.listen("Robert'); DROP TABLE students;--") }
    }
}
