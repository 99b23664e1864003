/// The values a matched route's `:name` segments bound, in order. Routes bind one or two: those
/// are kept inline, so routing a request allocates no array (one per request was about 1.5 % of a
/// revalidation's instructions, docs/benchmarks.md); a third and later go to an array.
public struct PathParameters: Sendable {
    public typealias Parameter = (name: String, value: String)
    /// How many of the inline pairs are bound (0, 1 or 2). Plain fields, not optional tuples: a
    /// tuple in an optional was copied through the runtime's generic witnesses.
    private var inline = 0
    private var name0 = ""
    private var value0 = ""
    private var name1 = ""
    private var value1 = ""
    private var more: [Parameter] = []

    public init() {}

    public init(_ parameters: [Parameter]) {
        for parameter in parameters { append(parameter) }
    }

    public var isEmpty: Bool { inline == 0 }

    /// Adds the next binding (after every one before it).
    public mutating func append(_ parameter: Parameter) {
        switch inline {
        case 0:
            (name0, value0) = parameter
            inline = 1
        case 1:
            (name1, value1) = parameter
            inline = 2
        default:
            more.append(parameter)
        }
    }

    /// The position of the first binding named `name`.
    @inline(__always)
    public func index(named name: String) -> Int? {
        if inline > 0 && name0 == name { return 0 }
        if inline > 1 && name1 == name { return 1 }
        return more.firstIndex { $0.name == name }.map { $0 + 2 }
    }

    /// The value of binding `i` (in `0..<count`).
    public func value(at i: Int) -> String {
        precondition(i >= 0 && i < count, "path parameter \(i) of \(count)")
        switch i {
        case 0: return value0
        case 1: return value1
        default: return more[i - 2].value
        }
    }

    /// `body` with the UTF-8 bytes of the first binding named `name` (nil when none is), read in
    /// place: no String is copied out, so nothing is retained for the read.
    @inline(__always)
    public func withUTF8Value<R>(named name: String, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R) rethrows -> R {
        guard let i = index(named: name) else { return try body(nil) }
        switch i {
        case 0: return try Self.withUTF8(value0, body)
        case 1: return try Self.withUTF8(value1, body)
        default: return try Self.withUTF8(more[i - 2].value, body)
        }
    }

    @inline(__always)
    private static func withUTF8<R>(_ value: String, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R) rethrows -> R {
        // A native String's bytes are contiguous; a bridged one is copied.
        if let result = try value.utf8.withContiguousStorageIfAvailable({ try body($0) }) { return result }
        var copy = value
        return try copy.withUTF8 { try body($0) }
    }

    /// How many values are bound.
    public var count: Int { inline + more.count }

    /// The value of the first binding named `name`.
    public func value(named name: String) -> String? {
        index(named: name).map(value(at:))
    }

    /// Every binding, in order.
    public var all: [Parameter] {
        var all: [Parameter] = []
        if inline > 0 { all.append((name0, value0)) }
        if inline > 1 { all.append((name1, value1)) }
        return all + more
    }
}
