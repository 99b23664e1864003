/// A JSON document in memory. The one JSON type of the server (documents, API bodies, MCP
/// messages), so it is cheap to build by literal, to read through subscripts, and to compare.
/// Objects are unordered; `canonicalBytes` sorts keys, so equal values always serialize alike.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

/// A JSON number that remembers whether it was written as an integer, so ids, counts and
/// timestamps survive a round trip exactly (no `1` → `1.0`, no precision loss up to Int64).
public enum JSONNumber: Sendable, Hashable, CustomStringConvertible {
    case integer(Int64)
    case double(Double)

    public var doubleValue: Double {
        switch self {
        case .integer(let i): return Double(i)
        case .double(let d): return d
        }
    }

    /// The exact integer, when the number is integral and fits in Int64.
    public var int64Value: Int64? {
        switch self {
        case .integer(let i): return i
        case .double(let d):
            return exactInt64(d)
        }
    }

    public var isIntegral: Bool { int64Value != nil }

    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): return a == b
        default:
            if let a = lhs.int64Value, let b = rhs.int64Value { return a == b }
            return lhs.doubleValue == rhs.doubleValue
        }
    }

    public func hash(into hasher: inout Hasher) {
        if let i = int64Value { hasher.combine(i) } else { hasher.combine(doubleValue) }
    }

    /// Canonical text: integers without a fraction, other numbers in the shortest form that
    /// reads back to the same Double.
    public var description: String {
        switch self {
        case .integer(let i): return String(i)
        case .double(let d):
            if abs(d) < 9.007199254740992e15, let i = exactInt64(d) { return String(i) }
            return String(d)
        }
    }
}

extension JSONValue {
    // MARK: Accessors (nil when the value has another type)

    public var isNull: Bool { if case .null = self { return true } else { return false } }
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var numberValue: JSONNumber? { if case .number(let n) = self { return n } else { return nil } }
    public var doubleValue: Double? { numberValue?.doubleValue }
    /// The value as an Int, when it is an integral number in range.
    public var intValue: Int? { numberValue?.int64Value.flatMap { Int(exactly: $0) } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { return o } else { return nil } }

    /// The JSON type name as JSON Schema spells it ("null", "boolean", "integer", "number", …).
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number(let n): return n.isIntegral ? "integer" : "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// Member of an object (nil for other types or a missing key); setting on a non-object does nothing,
    /// setting nil removes the key.
    public subscript(key: String) -> JSONValue? {
        get { if case .object(let o) = self { return o[key] } else { return nil } }
        set {
            guard case .object(var o) = self else { return }
            self = .null  // release the storage so the mutation below does not copy
            o[key] = newValue
            self = .object(o)
        }
    }

    /// Element of an array (nil for other types or out of range).
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let a) = self, a.indices.contains(index) else { return nil }
        return a[index]
    }

    public static func number(_ value: Int) -> JSONValue { .number(.integer(Int64(value))) }
    public static func number(_ value: Double) -> JSONValue { .number(.double(value)) }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .number(.integer(value)) }
    public init(floatLiteral value: Double) { self = .number(.double(value)) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object: [String: JSONValue] = [:]
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}

extension JSONValue: CustomStringConvertible {
    /// The canonical serialization as a String.
    public var description: String { canonicalString }
}

/// `Int64(exactly:)` without libm (the stdlib's version needs `trunc`, which the library avoids linking).
@inline(__always)
func exactInt64(_ d: Double) -> Int64? {
    guard d >= -9.223372036854775808e18, d < 9.223372036854775808e18 else { return nil }
    let i = Int64(d)
    return Double(i) == d ? i : nil
}
