/// Response header fields: ordered name/value pairs with case-insensitive lookup. An array of
/// pairs rather than a dictionary, so a handler's fixed headers cost nothing to copy.
public struct HTTPHeaders: Sendable, ExpressibleByDictionaryLiteral, Sequence {
    public private(set) var fields: [(name: String, value: String)]

    public init() { fields = [] }
    public init(_ pairs: [(String, String)]) { fields = pairs.map { (name: $0.0, value: $0.1) } }
    public init(dictionaryLiteral elements: (String, String)...) { fields = elements.map { (name: $0.0, value: $0.1) } }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    /// First value of `name`, case-insensitive. Setting replaces every field of that name
    /// (nil removes them).
    public subscript(name: String) -> String? {
        get { fields.first { Self.same($0.name, name) }?.value }
        set {
            if let i = fields.firstIndex(where: { Self.same($0.name, name) }) {
                fields.removeAll { Self.same($0.name, name) }
                if let newValue { fields.insert((name: name, value: newValue), at: Swift.min(i, fields.count)) }
            } else if let newValue {
                fields.append((name: name, value: newValue))
            }
        }
    }

    public mutating func add(_ name: String, _ value: String) { fields.append((name: name, value: value)) }
    public mutating func remove(_ name: String) { fields.removeAll { Self.same($0.name, name) } }
    public func contains(_ name: String) -> Bool { fields.contains { Self.same($0.name, name) } }

    /// Case-insensitive field-name equality over contiguous UTF-8 (a `zip` of the two UTF8Views
    /// cost ~100 instructions per byte in the response path's profile).
    static func same(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var x = a
        var y = b
        return x.withUTF8 { p in
            y.withUTF8 { q in
                for i in 0..<p.count where ByteClass.lower(p[i]) != ByteClass.lower(q[i]) { return false }
                return true
            }
        }
    }
}
