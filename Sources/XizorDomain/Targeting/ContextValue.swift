import PaywallFormat

/// A presentation-context value as the SDK sends it (`context.KEY=VALUE`): `true`/`false` become
/// booleans, JSON numbers numbers, everything else a string.
public enum ContextValue: Sendable, Hashable {
    case string(String)
    case number(Double)
    case bool(Bool)

    /// Types a query-string value.
    public init(queryValue raw: String) {
        if raw == "true" {
            self = .bool(true)
            return
        }
        if raw == "false" {
            self = .bool(false)
            return
        }
        if ContextValue.isJSONNumber(raw), let number = Double(raw) {
            self = .number(number)
            return
        }
        self = .string(raw)
    }

    /// A JSON scalar as a context value; objects, arrays and null have none.
    public init?(json: JSONValue) {
        switch json {
        case .string(let s): self = .string(s)
        case .bool(let b): self = .bool(b)
        case .number(let n): self = .number(n.doubleValue)
        default: return nil
        }
    }

    public var json: JSONValue {
        switch self {
        case .string(let s): .string(s)
        case .bool(let b): .bool(b)
        case .number(let n): n == n.rounded() && abs(n) < 9.0e15 ? .number(Int(n)) : .number(n)
        }
    }

    /// The text a `{{context.KEY}}` variable renders.
    public var text: String {
        switch self {
        case .string(let s): s
        case .bool(let b): b ? "true" : "false"
        case .number(let n): n == n.rounded() && abs(n) < 9.0e15 ? String(Int64(n)) : String(n)
        }
    }

    /// RFC 8259 number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    static func isJSONNumber(_ s: String) -> Bool {
        var bytes = Array(s.utf8)[...]
        func digits() -> Int {
            var n = 0
            while let b = bytes.first, b >= 0x30, b <= 0x39 {
                bytes.removeFirst()
                n += 1
            }
            return n
        }
        if bytes.first == UInt8(ascii: "-") { bytes.removeFirst() }
        if bytes.first == UInt8(ascii: "0") { bytes.removeFirst() } else if digits() == 0 { return false }
        if bytes.first == UInt8(ascii: ".") {
            bytes.removeFirst()
            if digits() == 0 { return false }
        }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes.removeFirst()
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes.removeFirst() }
            if digits() == 0 { return false }
        }
        return bytes.isEmpty
    }
}

/// The context of one request: key → typed value.
public typealias PresentationContext = [String: ContextValue]
