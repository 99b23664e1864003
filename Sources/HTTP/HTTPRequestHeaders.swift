/// A request's header fields as received, kept as one byte buffer plus offsets so parsing a
/// request builds no Strings; values become Strings only when a handler asks for them. The offsets
/// live in the same buffer, after the head's bytes: one allocation per request where two arrays
/// were two (about 1 % of a revalidation's instructions, docs/benchmarks.md).
public struct HTTPRequestHeaders: Sendable {
    struct Field: Sendable {
        var nameStart: Int32
        var nameEnd: Int32
        var valueStart: Int32
        var valueEnd: Int32
    }

    /// The head's bytes, then from `table` the `count` fields' offsets, one `Field` each.
    private(set) var storage: [UInt8]
    private let table: Int
    public let count: Int
    /// One bit per field name present, chosen by the name's length and last byte (`nameBit`). An
    /// SDK request asks for about ten names, most absent; a name whose bit no field set is answered
    /// here, without opening the buffers (each lookup did, and retained both arrays to do it). The
    /// last byte tells apart names of one length (`Authorization`, `If-None-Match`, `X-Xizor-Nonce`),
    /// which the length alone sent to a scan of every field.
    let nameBits: UInt64

    /// Where each `Standard` field first occurs (`StandardIndex`), found in the pass that sets
    /// `nameBits`.
    let standard: StandardIndex

    /// The bit of a name `count` bytes long ending in `last` (either case: bit 5 is set first).
    @inline(__always)
    static func nameBit(count: Int, last: UInt8) -> UInt64 {
        1 << UInt64(truncatingIfNeeded: (count &* 7 &+ Int(last | 0x20)) & 63)
    }

    @inline(__always)
    static func nameBit(_ name: UnsafeBufferPointer<UInt8>) -> UInt64 {
        nameBit(count: name.count, last: name.last ?? 0)
    }

    @inline(__always)
    static func nameBit(_ name: StaticString) -> UInt64 {
        let count = name.utf8CodeUnitCount
        return nameBit(count: count, last: count > 0 ? name.utf8Start[count - 1] : 0)
    }

    /// Headers over `storage`, whose bytes from `table` on are `fields` (the parser appends them
    /// to the head it owns, so handing the head over copies nothing).
    init(storage: [UInt8], table: Int, fields: [Field]) {
        precondition(
            table >= 0 && storage.count == table + fields.count * MemoryLayout<Field>.stride,
            "the field table is the end of the head's buffer")
        self.storage = storage
        self.table = table
        count = fields.count
        var bits: UInt64 = 0
        var standard = StandardIndex()
        storage.withUnsafeBufferPointer { buffer in
            for (i, f) in fields.enumerated() {
                let name = UnsafeBufferPointer(rebasing: buffer[Int(f.nameStart)..<Int(f.nameEnd)])
                bits |= Self.nameBit(name)
                if let field = Standard(name: name) { standard.record(field, at: i) }
            }
        }
        nameBits = bits
        self.standard = standard
    }

    /// Headers over `head` with `fields`' table appended to it. The parser passes the head it owns,
    /// so the append copies nothing and the request takes the buffer over (`head` is left empty).
    static func handingOver(_ head: inout [UInt8], fields: [Field]) -> HTTPRequestHeaders {
        let table = head.count
        fields.withUnsafeBytes { head.append(contentsOf: $0) }
        // Moved out, the parser left an empty one: a copy was a retain here and a release when the
        // parser let go of its own (atomic instructions, per request).
        var storage: [UInt8] = []
        swap(&storage, &head)
        return HTTPRequestHeaders(storage: storage, table: table, fields: fields)
    }

    /// Moves the buffer out, leaving no fields: a finished request's head buffer goes back to its
    /// connection's parser (`HTTPRequest.reclaimHeadBuffer`).
    mutating func takeStorage() -> [UInt8] {
        // Swapped out rather than copied (a retain, then a release as `self` is replaced).
        var taken: [UInt8] = []
        swap(&taken, &storage)
        self = HTTPRequestHeaders.none
        return taken
    }

    private static let none = HTTPRequestHeaders()

    /// Field `i`'s offsets, read from the table in `buffer` (the storage, opened).
    @inline(__always)
    private func field(_ buffer: UnsafeBufferPointer<UInt8>, _ i: Int) -> Field {
        precondition(i >= 0 && i < count, "field index out of range")
        return UnsafeRawBufferPointer(buffer).loadUnaligned(
            fromByteOffset: table + i * MemoryLayout<Field>.stride, as: Field.self)
    }

    /// Field `i`'s offsets.
    func field(at i: Int) -> Field {
        storage.withUnsafeBufferPointer { field($0, i) }
    }

    /// Headers built from pairs (tests, synthetic requests).
    public init(_ pairs: [(String, String)] = []) {
        var storage: [UInt8] = []
        var fields: [Field] = []
        for (name, value) in pairs {
            let ns = Int32(storage.count)
            storage.append(contentsOf: name.utf8)
            let ne = Int32(storage.count)
            storage.append(contentsOf: value.utf8)
            fields.append(Field(nameStart: ns, nameEnd: ne, valueStart: ne, valueEnd: Int32(storage.count)))
        }
        self = Self.handingOver(&storage, fields: fields)
    }

    /// The first value of the named field (case-insensitive), or nil.
    public subscript(name: String) -> String? {
        guard let i = index(of: name) else { return nil }
        return value(at: i)
    }

    /// Every value of the named field, in order.
    public func values(for name: String) -> [String] {
        var out: [String] = []
        forEachIndex(named: name) {
            out.append(value(at: $0))
            return true
        }
        return out
    }

    public func contains(_ name: String) -> Bool { index(of: name) != nil }

    /// All fields as (name, value) pairs in received order.
    public var pairs: [(name: String, value: String)] {
        (0..<count).map { (name(at: $0), value(at: $0)) }
    }

    func name(at i: Int) -> String {
        let f = field(at: i)
        return text(Int(f.nameStart)..<Int(f.nameEnd))
    }

    func value(at i: Int) -> String {
        let f = field(at: i)
        return text(Int(f.valueStart)..<Int(f.valueEnd))
    }

    /// Decoded from the storage's buffer: String's contiguous fast path, where an `ArraySlice` went
    /// through the generic one.
    private func text(_ range: Range<Int>) -> String {
        storage.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    func index(of name: String) -> Int? {
        var found: Int?
        forEachIndex(named: name) {
            found = $0
            return false
        }
        return found
    }

    /// Calls `body` with the index of every field named `name` (case-insensitive) until it returns
    /// false. The name's bytes and the storage are opened once per lookup, not once per field: an
    /// SDK request looks up five names that are mostly absent.
    private func forEachIndex(named name: String, _ body: (Int) -> Bool) {
        var name = name
        name.withUTF8 { wanted in
            guard nameBits & Self.nameBit(wanted) != 0 else { return }
            storage.withUnsafeBufferPointer { buffer in
                for i in 0..<count {
                    let f = field(buffer, i)
                    let start = Int(f.nameStart)
                    guard Int(f.nameEnd) - start == wanted.count else { continue }
                    // From the end: names of one length often share a prefix (`Accept-Encoding`,
                    // `Accept-Language`; `X-Xizor-…`), rarely a suffix.
                    var same = true
                    for k in stride(from: wanted.count - 1, through: 0, by: -1)
                    where ByteClass.lower(buffer[start + k]) != ByteClass.lower(wanted[k]) {
                        same = false
                        break
                    }
                    if same && !body(i) { return }
                }
            }
        }
    }

    /// Index of the first field whose name equals a lowercase literal; no allocation.
    func index(ofLowercased name: StaticString) -> Int? {
        guard nameBits & Self.nameBit(name) != 0 else { return nil }
        return storage.withUnsafeBufferPointer { buf in
            for i in 0..<count {
                let f = field(buf, i)
                let slice = UnsafeBufferPointer(rebasing: buf[Int(f.nameStart)..<Int(f.nameEnd)])
                if ByteClass.equalsLowercasedName(slice, name) { return i }
            }
            return nil
        }
    }

    /// The value bytes of the first field named by a lowercase literal (nil when there is none),
    /// without making a String of them.
    public func withFirstValue<R>(ofLowercased name: StaticString, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R)
        rethrows -> R
    {
        guard let i = index(ofLowercased: name) else { return try body(nil) }
        return try storage.withUnsafeBufferPointer {
            let f = field($0, i)
            return try body(UnsafeBufferPointer(rebasing: $0[Int(f.valueStart)..<Int(f.valueEnd)]))
        }
    }

    /// The index of the first `field`, from the parser's record; by name only when it lay past
    /// what the record holds.
    func index(of field: Standard) -> Int? {
        switch standard.entry(field) {
        case .absent: return nil
        case .at(let i), .repeated(first: let i): return i
        case .unrecorded: return index(ofLowercased: field.lowercasedName)
        }
    }

    /// The first value of `field` (see `index(of:)`).
    public subscript(field: Standard) -> String? {
        index(of: field).map(value(at:))
    }

    /// The value bytes of the first `field` (nil when there is none), without making a String.
    public func withFirstValue<R>(of field: Standard, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R) rethrows
        -> R
    {
        guard let i = index(of: field) else { return try body(nil) }
        return try storage.withUnsafeBufferPointer {
            let f = self.field($0, i)
            return try body(UnsafeBufferPointer(rebasing: $0[Int(f.valueStart)..<Int(f.valueEnd)]))
        }
    }

    /// Calls `body` with the value bytes of every `field`: a field that occurs once is read at its
    /// recorded index; several (or one past the record) are looked for by name.
    func forEachValue(of field: Standard, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        switch standard.entry(field) {
        case .absent: return
        case .at(let i):
            storage.withUnsafeBufferPointer { buf in
                let f = self.field(buf, i)
                body(UnsafeBufferPointer(rebasing: buf[Int(f.valueStart)..<Int(f.valueEnd)]))
            }
        case .repeated, .unrecorded: forEachValue(ofLowercased: field.lowercasedName, body)
        }
    }

    /// Calls `body` with the value bytes of every field named by a lowercase literal.
    func forEachValue(ofLowercased name: StaticString, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard nameBits & Self.nameBit(name) != 0 else { return }
        storage.withUnsafeBufferPointer { buf in
            for i in 0..<count {
                let f = field(buf, i)
                let n = UnsafeBufferPointer(rebasing: buf[Int(f.nameStart)..<Int(f.nameEnd)])
                if ByteClass.equalsLowercasedName(n, name) {
                    body(UnsafeBufferPointer(rebasing: buf[Int(f.valueStart)..<Int(f.valueEnd)]))
                }
            }
        }
    }
}
