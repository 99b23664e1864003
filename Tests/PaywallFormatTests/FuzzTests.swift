import PaywallFormat
import Testing

/// SplitMix64: a tiny deterministic PRNG so a failure reproduces from its seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct FuzzTests {
    static let words: [String] = [
        "type", "stack", "text", "hologram", "$text", "$nope", "#FFF", "red", "{{product.price}}", "{{", "en", "de",
        "https://x.example/a.png", "http://x", "$selected", "duration", "children", "fallback", "", "😀", "yearly",
    ]

    static func randomValue(_ rng: inout SplitMix64, depth: Int) -> JSONValue {
        switch Int.random(in: 0..<(depth > 3 ? 5 : 8), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .number(.integer(Int64.random(in: -1000...100_000, using: &rng)))
        case 3: return .number(.double(Double.random(in: -10...10, using: &rng)))
        case 4: return .string(words.randomElement(using: &rng) ?? "")
        case 5: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) })
        default:
            var o: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &rng) {
                o[words.randomElement(using: &rng) ?? "k"] = randomValue(&rng, depth: depth + 1)
            }
            return .object(o)
        }
    }

    /// Replaces, deletes or retypes one random spot of the document.
    static func mutate(_ value: JSONValue, _ rng: inout SplitMix64) -> JSONValue {
        switch value {
        case .object(var o) where !o.isEmpty && Int.random(in: 0..<4, using: &rng) > 0:
            let keys = o.keys.sorted()
            let key = keys[Int.random(in: 0..<keys.count, using: &rng)]
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: o[key] = nil
            case 1: o[key] = randomValue(&rng, depth: 2)
            case 2: o[words.randomElement(using: &rng) ?? "x"] = randomValue(&rng, depth: 3)
            default: o[key] = mutate(o[key] ?? .null, &rng)
            }
            return .object(o)
        case .array(var a) where !a.isEmpty && Int.random(in: 0..<4, using: &rng) > 0:
            let i = Int.random(in: 0..<a.count, using: &rng)
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: a.remove(at: i)
            case 1: a.append(a[i])
            default: a[i] = mutate(a[i], &rng)
            }
            return .array(a)
        default:
            return randomValue(&rng, depth: 3)
        }
    }

    @Test func mutatedAndRandomDocumentsNeverCrashEitherReader() throws {
        var rng = SplitMix64(state: 0xC0FFEE)
        let seeds = try PaywallTemplates.all().map(\.document)
        var invalid = 0
        for i in 0..<3000 {
            var doc = i % 10 == 0 ? Self.randomValue(&rng, depth: 0) : seeds[i % seeds.count]
            for _ in 0..<Int.random(in: 1...4, using: &rng) { doc = Self.mutate(doc, &rng) }
            let result = PaywallValidator.validate(doc)
            if !result.isValid { invalid += 1 }
            #expect(result.isValid == (result.document != nil))
            _ = PaywallReader.read(doc)
            _ = PaywallLocalization.texts(in: doc)
            _ = try? migrate(doc, to: 1)
            // Canonical bytes always parse back to the same value.
            #expect((try? JSONParser().parse(doc.canonicalBytes)) == doc)
        }
        #expect(invalid > 1000)
    }

    @Test func randomBytesNeverCrashTheParser() {
        var rng = SplitMix64(state: 42)
        let alphabet = Array("{}[]\",:.-+eE0123456789 \n\\tnullfasru".utf8) + [0x00, 0xC3, 0xFF, 0x80]
        let template = Array(PaywallTemplates.source(named: "clean")?.utf8 ?? "".utf8)
        for i in 0..<3000 {
            var bytes: [UInt8]
            if i % 2 == 0 {
                bytes = (0..<Int.random(in: 0...64, using: &rng)).map { _ in alphabet.randomElement(using: &rng) ?? 0 }
            } else {
                bytes = template
                for _ in 0..<Int.random(in: 1...5, using: &rng) {
                    let at = Int.random(in: 0..<bytes.count, using: &rng)
                    bytes[at] = alphabet.randomElement(using: &rng) ?? 0
                }
            }
            if let value = try? JSONParser().parse(bytes) {
                _ = PaywallValidator.validate(value)
                _ = PaywallReader.read(value)
            }
        }
    }
}
