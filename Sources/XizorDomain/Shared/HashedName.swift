/// A tenant's name (a placement's key) as a dictionary key, with its hash computed once:
/// `String`'s own keyed SipHash (`hashValue`, seeded per process, so neither a tenant nor a client
/// can aim names at one bucket), mixed with each table's seed by `SeededWord` instead of another
/// `Hasher` round. The SDK path takes the hash of the placement in its URL from the loop's route
/// memo (`HTTPRequest.pathParameterHashed`), computed once per path, so a revalidation hashes no
/// placement key: the lookup and the representation key's hash were ~450 instructions of it
/// (docs/benchmarks.md).
public struct HashedName: Hashable, Sendable, ExpressibleByStringLiteral {
    public let text: String
    /// `text.hashValue`.
    public let hash: Int

    public init(_ text: String) {
        self.text = text
        hash = text.hashValue
    }

    /// `text` with its `hashValue` computed elsewhere (a memoised route's).
    public init(_ text: String, hash: Int) {
        assert(hash == text.hashValue, "a name's hash is its text's hashValue")
        self.text = text
        self.hash = hash
    }

    public init(stringLiteral text: String) { self.init(text) }

    public static func == (a: HashedName, b: HashedName) -> Bool { a.hash == b.hash && a.text == b.text }

    public func hash(into hasher: inout Hasher) { hasher.combine(hash) }

    public func _rawHashValue(seed: Int) -> Int {
        SeededWord.mixed(UInt64(UInt(bitPattern: hash)), seed: seed)
    }
}
