/// Turns a `JSONValue` into bytes. The canonical form (keys sorted by Unicode code points, no
/// whitespace, shortest round-trip numbers, integers without a fraction, only `"`, `\` and control
/// characters escaped) is what content hashes and ETags are computed from; the pretty form is for people.
public enum JSONSerializer {
    public static func canonicalBytes(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        write(value, into: &out, indent: nil, level: 0)
        return out
    }

    /// Two-space indented, keys sorted, one member per line.
    public static func prettyBytes(_ value: JSONValue, indent: Int = 2) -> [UInt8] {
        var out: [UInt8] = []
        write(value, into: &out, indent: indent, level: 0)
        out.append(0x0A)
        return out
    }

    static func sortedKeys(_ object: [String: JSONValue]) -> [String] {
        object.keys.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
    }

    static func write(_ value: JSONValue, into out: inout [UInt8], indent: Int?, level: Int) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.description.utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            if items.isEmpty {
                out.append(UInt8(ascii: "]"))
                return
            }
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent: indent, level: level + 1)
                write(item, into: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent: indent, level: level)
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            if object.isEmpty {
                out.append(UInt8(ascii: "}"))
                return
            }
            for (i, key) in sortedKeys(object).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent: indent, level: level + 1)
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(0x20) }
                if let member = object[key] { write(member, into: &out, indent: indent, level: level + 1) }
            }
            newline(&out, indent: indent, level: level)
            out.append(UInt8(ascii: "}"))
        }
    }

    static func newline(_ out: inout [UInt8], indent: Int?, level: Int) {
        guard let indent else { return }
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: indent * level))
    }

    static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(0x22)
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            out.append(contentsOf: s.utf8)
            out.append(0x22)
            return
        }
        for b in s.utf8 {
            switch b {
            case 0x22:
                out.append(0x5C)
                out.append(0x22)
            case 0x5C:
                out.append(0x5C)
                out.append(0x5C)
            case 0x08:
                out.append(0x5C)
                out.append(UInt8(ascii: "b"))
            case 0x0C:
                out.append(0x5C)
                out.append(UInt8(ascii: "f"))
            case 0x0A:
                out.append(0x5C)
                out.append(UInt8(ascii: "n"))
            case 0x0D:
                out.append(0x5C)
                out.append(UInt8(ascii: "r"))
            case 0x09:
                out.append(0x5C)
                out.append(UInt8(ascii: "t"))
            case 0..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hexDigits[Int(b >> 4)])
                out.append(hexDigits[Int(b & 0xF)])
            default: out.append(b)
            }
        }
        out.append(0x22)
    }
}

extension JSONValue {
    /// The canonical serialization (see `JSONSerializer`).
    public var canonicalBytes: [UInt8] { JSONSerializer.canonicalBytes(self) }
    public var canonicalString: String { String(decoding: canonicalBytes, as: UTF8.self) }
    /// Indented, sorted keys, trailing newline.
    public var prettyString: String { String(decoding: JSONSerializer.prettyBytes(self), as: UTF8.self) }
}
