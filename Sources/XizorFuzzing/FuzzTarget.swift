import PaywallFormat

/// The fuzz targets of `make fuzz` (docs/fuzzing.md): each takes arbitrary bytes, drives one pure
/// layer with them, and checks properties that must hold for *every* input, not just "no crash".
///
/// The same functions run three ways: under libFuzzer (`xizor-fuzz` built with
/// `-sanitize=fuzzer,address`), over the committed corpora and regressions in `FuzzTests`, and by
/// `xizor-fuzz replay` for one file. A property that fails throws a `FuzzFinding`; the fuzzing
/// build turns that into a crash libFuzzer records, the tests into a failed expectation.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// `HTTPRequestParser`: the same events whether the bytes arrive whole or in pieces.
    case httpParser = "http-parser"
    /// `JSONParser` and `JSONSerializer`: what parses, serializes to text that parses to the same value.
    case json
    /// `PaywallReader` and `PaywallValidator` over any JSON document.
    case document
    /// `PaywallRenderer` within its `RenderBudget`: a page or a typed error, never more than the budget.
    case render
    /// `Condition.parse` and `Condition.matches`: logical identities and a JSON round trip.
    case condition

    /// Runs one input through the target.
    public func run(_ input: UnsafeRawBufferPointer) throws(FuzzFinding) {
        switch self {
        case .httpParser: try HTTPParserFuzz.run(input)
        case .json: try JSONFuzz.run(input)
        case .document: try DocumentFuzz.run(input)
        case .render: try RenderFuzz.run(input)
        case .condition: try ConditionFuzz.run(input)
        }
    }

    public func run(_ input: [UInt8]) throws(FuzzFinding) {
        let result = input.withUnsafeBytes { bytes in Result { () throws(FuzzFinding) in try run(bytes) } }
        try result.get()
    }
}

/// A property a target checks did not hold for an input.
public struct FuzzFinding: Error, Sendable, CustomStringConvertible {
    public var target: FuzzTarget
    public var property: String

    public init(_ target: FuzzTarget, _ property: String) {
        self.target = target
        self.property = property
    }

    public var description: String { "\(target.rawValue): \(property)" }
}

/// The JSON reading every JSON-fed target shares: the server's parser, with a depth that keeps
/// libFuzzer's deepest nestings cheap. Input that is not JSON is simply not this target's concern.
enum FuzzJSON {
    static let parser = JSONParser(maxDepth: 64, maxBytes: 1 << 20)

    static func parse(_ input: UnsafeRawBufferPointer) -> JSONValue? {
        do { return try parser.parse(bytes: input.bindMemory(to: UInt8.self)) } catch { return nil }
    }
}
