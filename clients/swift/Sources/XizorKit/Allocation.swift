import Foundation

/// A cacheable allocation (docs/client-swift.md, "Experiments on the device"): instead of assigning
/// the subscriber itself, which would make the answer differ per subscriber and so uncacheable by a
/// CDN, the server answers which variant each bucket shows, and the device computes its bucket with
/// the server's own function. The answer is then the same for everyone, and the variant's paywall is
/// a second cacheable request.
struct ExperimentAllocation: Sendable, Equatable {
    struct Range: Sendable, Equatable {
        var from: Int
        var to: Int
        /// Nil: the holdout.
        var variant: String?
    }

    enum Choice: Sendable, Equatable {
        case variant(String)
        case holdout
    }

    var experimentId: String
    var buckets: Int
    var ranges: [Range]
    /// Variant names in the experiment's order; the first is the control.
    var variants: [String]

    /// Reads the body's `allocation` and checks it is whole: ranges in order, covering 0..<buckets
    /// exactly, naming only listed variants. An allocation with a gap would leave some subscribers
    /// with no answer, so it is refused as a malformed answer rather than half used.
    init(_ value: JSONValue) throws {
        func invalid(_ why: String) -> XizorError { .invalidResponse("allocation: \(why)") }
        guard let experimentId = value["experimentId"]?.stringValue, !experimentId.isEmpty else {
            throw invalid("no experimentId")
        }
        guard let buckets = value["buckets"]?.intValue, buckets > 0 else { throw invalid("no positive buckets") }
        guard case .array(let rawVariants)? = value["variants"], !rawVariants.isEmpty else {
            throw invalid("no variants")
        }
        var variants: [String] = []
        for raw in rawVariants {
            guard let name = raw["name"]?.stringValue, !name.isEmpty, !variants.contains(name) else {
                throw invalid("a variant without a name of its own")
            }
            variants.append(name)
        }
        guard case .array(let rawRanges)? = value["ranges"], !rawRanges.isEmpty else { throw invalid("no ranges") }
        var ranges: [Range] = []
        var next = 0
        for raw in rawRanges {
            guard let from = raw["from"]?.intValue, let to = raw["to"]?.intValue, from == next, to > from else {
                throw invalid("ranges do not cover 0..<\(buckets) in order")
            }
            let variant: String?
            switch raw["variant"] {
            case .null?, nil: variant = nil
            case .string(let name)? where variants.contains(name): variant = name
            default: throw invalid("a range names no listed variant")
            }
            ranges.append(Range(from: from, to: to, variant: variant))
            next = to
        }
        guard next == buckets else { throw invalid("ranges do not cover 0..<\(buckets) in order") }
        self.experimentId = experimentId
        self.buckets = buckets
        self.ranges = ranges
        self.variants = variants
    }

    /// The server's `Allocation.bucket`: the first 8 bytes of SHA-256("<experimentId>:<subscriberId>"),
    /// big-endian, modulo the bucket count. The same on every device and server, so a subscriber sees
    /// the variant the server would have assigned, and results count them there. Nil without SHA-256.
    static func bucket(experimentId: String, subscriberId: String, buckets: Int) -> Int? {
        guard buckets > 0, let digest = Crypto.sha256(Array("\(experimentId):\(subscriberId)".utf8)) else {
            return nil
        }
        var value: UInt64 = 0
        for byte in digest.prefix(8) { value = value << 8 | UInt64(byte) }
        return Int(value % UInt64(buckets))
    }

    /// What `subscriberId` is shown: its bucket's range; without a subscriber, the first variant (the
    /// control), as the server answers one. Nil when the bucket cannot be computed (no SHA-256).
    func choice(for subscriberId: String?) -> Choice? {
        guard let subscriberId, !subscriberId.isEmpty else { return variants.first.map(Choice.variant) }
        guard let bucket = Self.bucket(experimentId: experimentId, subscriberId: subscriberId, buckets: buckets),
            let range = ranges.first(where: { $0.from <= bucket && bucket < $0.to })
        else { return nil }
        return range.variant.map(Choice.variant) ?? .holdout
    }
}
