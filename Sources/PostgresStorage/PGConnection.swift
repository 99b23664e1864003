import CPostgreSQL
import Glibc
import Storage

/// One libpq connection. Statements are prepared once per connection (named by their SQL) and run
/// with parameters sent as text; results come back as the same `Row`s the SQLite layer returns,
/// each column converted by its type (integers, reals, bytea → blob, boolean → 0/1, the rest text),
/// so a store reads a PostgreSQL row exactly as it reads an SQLite one.
///
/// A statement whose result holds `bytea` is read in binary when every column's type has a binary
/// form read here (`binaryColumnTypes`): text bytea is hex, twice the bytes on the wire and a loop
/// over each on both sides — for a dense subscriber sketch, 32 KiB printed by the server and parsed
/// here instead of 16 KiB copied (docs/benchmarks.md, "Analytics"). Every other statement is read as
/// text, whose forms cover every type.
///
/// Not Sendable: a connection is used by one thread at a time (the pool hands it out).
public final class PGConnection {
    private var handle: OpaquePointer?
    private var prepared: [String: PreparedStatement] = [:]
    /// Statements named on this connection so far: a name is never used twice, even for a statement
    /// prepared but not kept (its description failed).
    private var named = 0
    /// Rows the last `execute` changed (`PQcmdTuples`).
    public private(set) var changes = 0

    /// Connects with a libpq connection string or URI (`postgresql://user@host:port/db`).
    public init(url: String) throws(PGError) {
        let connection = PQconnectdb(url)
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            let message = connection.map { String(cString: PQerrorMessage($0)) } ?? "out of memory"
            if let connection { PQfinish(connection) }
            throw PGError(sqlState: nil, message: "cannot connect: \(message.trimmingTrailingNewlines)")
        }
        // libpq prints the server's notices ("relation … already exists, skipping") to stderr, where
        // the server's log is JSON lines only: drop them (errors still come back as errors).
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
    }

    deinit { close() }

    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        prepared.removeAll()
        named = 0
    }

    /// Whether the connection is still usable (a lost server makes it bad).
    public var isHealthy: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// Runs one statement with `$1, $2, …` parameters; returns its rows.
    @discardableResult
    public func query(_ sql: String, _ bindings: [any SQLBindable] = []) throws(PGError) -> [Row] {
        let handle = try open()
        let statement = try prepare(sql, parameters: bindings.count, handle)
        let texts = bindings.map { PGConnection.text($0.sqlValue) }
        let result = PGConnection.withCStrings(texts) { pointers in
            PQexecPrepared(handle, statement.name, Int32(pointers.count), pointers, nil, nil, statement.binary ? 1 : 0)
        }
        return try rows(of: result, sql: sql)
    }

    public func queryOne(_ sql: String, _ bindings: [any SQLBindable] = []) throws(PGError) -> Row? {
        try query(sql, bindings).first
    }

    /// Runs one statement and records how many rows it changed in `changes`.
    public func execute(_ sql: String, _ bindings: [any SQLBindable] = []) throws(PGError) {
        _ = try query(sql, bindings)
    }

    /// Runs several `;`-separated statements without parameters (migrations), in one round trip.
    public func executeScript(_ sql: String) throws(PGError) {
        let handle = try open()
        _ = try rows(of: PQexec(handle, sql), sql: nil)
    }

    // MARK: Notifications

    /// `LISTEN channel` on this connection.
    public func listen(_ channel: String) throws(PGError) {
        guard channel.utf8.allSatisfy({ $0 == 0x5F || ($0 >= 0x61 && $0 <= 0x7A) }) else {
            throw .misuse("a channel name is lowercase letters and underscores")
        }
        try executeScript("LISTEN \(channel)")
    }

    /// Reads what the server sent without blocking and answers how many notifications arrived.
    public func drainNotifications() throws(PGError) -> Int {
        let handle = try open()
        guard PQconsumeInput(handle) == 1 else {
            throw PGError(
                sqlState: nil,
                message: "connection lost: \(String(cString: PQerrorMessage(handle)).trimmingTrailingNewlines)")
        }
        var count = 0
        while let notification = PQnotifies(handle) {
            count += 1
            PQfreemem(notification)
        }
        return count
    }

    /// The socket, to wait on with `poll` until the server sends something.
    public var socket: Int32 { handle.map { PQsocket($0) } ?? -1 }

    // MARK: Internals

    private func open() throws(PGError) -> OpaquePointer {
        guard let handle else { throw .misuse("the connection is closed") }
        return handle
    }

    /// A statement prepared on this connection, and whether its results are asked for in binary.
    private struct PreparedStatement {
        let name: String
        let binary: Bool
    }

    /// Prepares `sql` once per connection; its description (one more round trip, once) tells the
    /// result's column types, from which the format is chosen.
    private func prepare(_ sql: String, parameters: Int, _ handle: OpaquePointer) throws(PGError) -> PreparedStatement {
        if let statement = prepared[sql] { return statement }
        named += 1
        let name = "xizor_\(named)"
        _ = try rows(of: PQprepare(handle, name, sql, Int32(parameters), nil), sql: sql)
        let types = try columnTypes(of: PQdescribePrepared(handle, name), sql: sql)
        let statement = PreparedStatement(
            name: name, binary: types.contains(Self.bytea) && types.allSatisfy(Self.binaryColumnTypes.contains))
        prepared[sql] = statement
        return statement
    }

    private func columnTypes(of description: OpaquePointer?, sql: String) throws(PGError) -> [Oid] {
        guard let description, PQresultStatus(description) == PGRES_COMMAND_OK else {
            _ = try rows(of: description, sql: sql)  // throws the server's error
            throw PGError(sqlState: nil, message: "the statement could not be described", sql: sql)
        }
        defer { PQclear(description) }
        return (0..<PQnfields(description)).map { PQftype(description, $0) }
    }

    /// Whether a statement was prepared to read its results in binary (nil: not prepared here).
    func readsBinary(_ sql: String) -> Bool? { prepared[sql]?.binary }

    private func rows(of result: OpaquePointer?, sql: String?) throws(PGError) -> [Row] {
        guard let result else {
            throw PGError(
                sqlState: nil,
                message: handle.map { String(cString: PQerrorMessage($0)).trimmingTrailingNewlines } ?? "no connection",
                sql: sql)
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            break
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let message = PQresultErrorMessage(result).map { String(cString: $0) } ?? "unknown error"
            throw PGError(sqlState: state, message: message.trimmingTrailingNewlines, sql: sql)
        }
        changes = PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
        let count = Int(PQntuples(result))
        let width = Int(PQnfields(result))
        guard count > 0 else { return [] }
        let columns = (0..<width).map { String(cString: PQfname(result, Int32($0))) }
        let types = (0..<width).map { PQftype(result, Int32($0)) }
        var rows: [Row] = []
        rows.reserveCapacity(count)
        for r in 0..<Int32(count) {
            var values: [SQLValue] = []
            values.reserveCapacity(width)
            for c in 0..<Int32(width) {
                if PQgetisnull(result, r, c) == 1 {
                    values.append(.null)
                    continue
                }
                guard let pointer = PQgetvalue(result, r, c) else { throw PGError.misuse("a value without text") }
                if PQfformat(result, c) == 1 {
                    let bytes = UnsafeRawBufferPointer(start: pointer, count: Int(PQgetlength(result, r, c)))
                    values.append(try PGConnection.value(binary: bytes, type: types[Int(c)]))
                    continue
                }
                if types[Int(c)] == Self.bytea {
                    // bytea straight from libpq's buffer: a sketch is 32 KiB of hex, not worth a String.
                    let length = Int(PQgetlength(result, r, c))
                    let bytes = UnsafeRawBufferPointer(start: pointer, count: length).bindMemory(to: UInt8.self)
                    guard length >= 2, bytes[0] == 0x5C, bytes[1] == 0x78, let decoded = Hex.decode(bytes.dropFirst(2))
                    else { throw PGError(sqlState: "22P02", message: "bytea not in hex format") }
                    values.append(.blob(decoded))
                    continue
                }
                let text = String(cString: pointer)
                values.append(try PGConnection.value(text, type: types[Int(c)]))
            }
            rows.append(Row(columns: columns, values: values))
        }
        return rows
    }

    /// A text-format column as a storage class, by its type's OID (`pg_type`).
    static func value(_ text: String, type: Oid) throws(PGError) -> SQLValue {
        switch type {
        case 16: return .integer(text == "t" ? 1 : 0)  // boolean
        case 20, 21, 23, 26:  // int8, int2, int4, oid
            guard let n = Int64(text) else { throw PGError(sqlState: "22P02", message: "not an integer: \(text)") }
            return .integer(n)
        case 1700:  // numeric (sum() of integers)
            if let n = Int64(text) { return .integer(n) }
            guard let d = Double(text) else { throw PGError(sqlState: "22P02", message: "not a number: \(text)") }
            return .real(d)
        case 700, 701:  // float4, float8
            guard let d = Double(text) else { throw PGError(sqlState: "22P02", message: "not a number: \(text)") }
            return .real(d)
        case bytea:  // hex output
            guard let bytes = Hex.decode(text.utf8.dropFirst(2)), text.hasPrefix("\\x") else {
                throw PGError(sqlState: "22P02", message: "bytea not in hex format")
            }
            return .blob(bytes)
        default:
            return .text(text)
        }
    }

    static let bytea: Oid = 17

    /// The types whose binary form `value(binary:type:)` reads (their `typsend` output) as their text
    /// form would be read: boolean, bytea, the integers and oid, float8, and text, varchar, bpchar
    /// and name (binary text is the text's UTF-8 bytes). Not float4: its text is rounded to a short
    /// decimal, its binary not, so the two would read as different doubles.
    static let binaryColumnTypes: Set<Oid> = [16, 17, 20, 21, 23, 26, 701, 25, 1043, 1042, 19]

    /// A binary-format column as a storage class, by its type's OID; a length that is not the
    /// type's is a protocol error, not a value.
    static func value(binary bytes: UnsafeRawBufferPointer, type: Oid) throws(PGError) -> SQLValue {
        func fixed<T: FixedWidthInteger>(_: T.Type) throws(PGError) -> T {
            guard bytes.count == MemoryLayout<T>.size else {
                throw PGError(sqlState: "08P01", message: "a binary value of type \(type) is \(bytes.count) bytes")
            }
            return T(bigEndian: bytes.loadUnaligned(as: T.self))
        }
        switch type {
        case 16: return .integer(try fixed(UInt8.self) == 0 ? 0 : 1)
        case bytea: return .blob([UInt8](bytes))
        case 20: return .integer(try fixed(Int64.self))
        case 21: return .integer(Int64(try fixed(Int16.self)))
        case 23: return .integer(Int64(try fixed(Int32.self)))
        case 26: return .integer(Int64(try fixed(UInt32.self)))
        case 701: return .real(Double(bitPattern: try fixed(UInt64.self)))
        case 25, 1043, 1042, 19: return .text(String(decoding: bytes, as: UTF8.self))
        default: throw .misuse("the type \(type) has no binary reading (binaryColumnTypes)")
        }
    }

    /// A parameter in PostgreSQL's text input format (bytea as `\x` + hex); nil is NULL.
    static func text(_ value: SQLValue) -> String? {
        switch value {
        case .null: nil
        case .integer(let n): String(n)
        case .real(let d): "\(d)"
        case .text(let s): s
        case .blob(let bytes): "\\x" + Hex.encode(bytes)
        }
    }

    /// Calls `body` with C strings for `texts` (NULL for nil), valid only during the call.
    static func withCStrings<T>(_ texts: [String?], _ body: ([UnsafePointer<CChar>?]) -> T) -> T {
        var storage: [UnsafeMutablePointer<CChar>?] = texts.map { $0.flatMap { strdup($0) } }
        defer { for pointer in storage { free(pointer) } }
        return storage.withUnsafeMutableBufferPointer { buffer in body(buffer.map { $0.map { UnsafePointer($0) } }) }
    }
}

/// Lowercase hex, for bytea.
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Each byte's value as a hex digit, 0xFF when it is none.
    private static let nibbles: [UInt8] = (0...255).map { c -> UInt8 in
        switch UInt8(c) {
        case 0x30...0x39: UInt8(c) - 0x30
        case 0x61...0x66: UInt8(c) - 0x61 + 10
        case 0x41...0x46: UInt8(c) - 0x41 + 10
        default: 0xFF
        }
    }

    static func decode<S: Collection>(_ text: S) -> [UInt8]? where S.Element == UInt8 {
        guard text.count % 2 == 0 else { return nil }
        var out = [UInt8](repeating: 0, count: text.count / 2)
        var index = 0
        var iterator = text.makeIterator()
        var valid = true
        nibbles.withUnsafeBufferPointer { table in
            while let high = iterator.next(), let low = iterator.next() {
                let h = table[Int(high)]
                let l = table[Int(low)]
                if h | l > 0x0F {
                    valid = false
                    return
                }
                out[index] = h << 4 | l
                index += 1
            }
        }
        return valid ? out : nil
    }
}

extension String {
    var trimmingTrailingNewlines: String {
        var s = self
        while s.hasSuffix("\n") { s.removeLast() }
        return s
    }
}
