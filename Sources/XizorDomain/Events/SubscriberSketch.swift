import Foundation

/// The distinct subscribers of a rollup bucket, mergeable across buckets: a funnel's
/// `uniqueSubscribers` over any range is the merge of its buckets' sketches, so it costs the buckets
/// read, not the events behind them.
///
/// Exact while small: up to `exactLimit` distinct subscribers it is the set of their 64-bit hashes
/// (two ids colliding is a 1-in-2^64 event per pair), and counts exactly. The set is kept as a
/// sorted array, as it is stored: a report reads thousands of them, and a sorted array is decoded by
/// a copy and merged by one pass, where a hashed set hashed every element again. Past that it becomes a
/// HyperLogLog of 2^14 one-byte registers (16 KiB, the size of the exact set at its limit), read
/// with Ertl's improved estimator ("New cardinality estimation algorithms for HyperLogLog
/// sketches", 2017), which needs no bias tables and holds its error over the whole range: a relative
/// standard error of 1.04 / √2^14 ≈ 0.81 % (`relativeStandardError`). Merging is a union (exact) or
/// a register-wise maximum (dense); a merge is the same whatever the order.
public struct SubscriberSketch: Sendable, Equatable {
    static let precision = 14
    static let registerCount = 1 << precision
    /// Exact up to this many hashes; the encoded set is then the size of the dense registers.
    public static let exactLimit = 2048
    /// 1.04 / √m for m = 2^14 registers.
    public static let relativeStandardError = 1.04 / Double(1 << 7)

    enum Form: Sendable, Equatable {
        /// Ascending, no hash twice (`ExactHashes`).
        case exact([UInt64])
        case dense([UInt8])
    }

    private(set) var form: Form = .exact([])

    public init() {}

    /// A sketch of the given subscriber ids.
    public init(subscribers: some Sequence<String>) {
        for id in subscribers { insert(id) }
    }

    /// Whether `count` is exact (false once it became an estimate).
    public var isExact: Bool {
        if case .exact = form { return true } else { return false }
    }

    public mutating func insert(_ subscriberID: String) {
        insert(hash: SubscriberHash.of(subscriberID))
    }

    mutating func insert(hash: UInt64) {
        switch form {
        case .exact(var hashes):
            form = .exact([])  // no second reference while the set grows
            ExactHashes.insert(hash, into: &hashes)
            form = hashes.count > Self.exactLimit ? .dense(Self.registers(of: hashes)) : .exact(hashes)
        case .dense(var registers):
            form = .exact([])
            Self.add(hash, to: &registers)
            form = .dense(registers)
        }
    }

    /// Forgets a subscriber (their erasure): possible while exact only, since a register cannot
    /// tell whose hash set it; a dense sketch keeps counting them, within its error.
    public mutating func remove(_ subscriberID: String) {
        guard case .exact(var hashes) = form else { return }
        form = .exact([])
        ExactHashes.remove(SubscriberHash.of(subscriberID), from: &hashes)
        form = .exact(hashes)
    }

    /// This sketch and `other` as one: the union of their subscribers.
    public mutating func merge(_ other: SubscriberSketch) {
        switch (form, other.form) {
        case (.exact(let mine), .exact(let theirs)):
            let union = ExactHashes.union(mine, theirs)
            form = union.count > Self.exactLimit ? .dense(Self.registers(of: union)) : .exact(union)
        case (.dense(var mine), .exact(let theirs)):
            form = .exact([])
            for hash in theirs { Self.add(hash, to: &mine) }
            form = .dense(mine)
        case (.exact(let mine), .dense(var theirs)):
            for hash in mine { Self.add(hash, to: &theirs) }
            form = .dense(theirs)
        case (.dense(var mine), .dense(let theirs)):
            form = .exact([])
            precondition(mine.count == theirs.count, "dense sketches have registerCount registers")
            // Over raw buffers, without a branch per register, so the loop is vectorised: a report
            // merges a dense sketch per bucket read (thousands at 50 M events).
            mine.withUnsafeMutableBufferPointer { mine in
                theirs.withUnsafeBufferPointer { theirs in
                    for index in 0..<mine.count { mine[index] = Swift.max(mine[index], theirs[index]) }
                }
            }
            form = .dense(mine)
        }
    }

    /// The number of distinct subscribers: exact while `isExact`, else the estimate.
    public var count: Int {
        switch form {
        case .exact(let hashes): hashes.count
        case .dense(let registers): Int(Self.estimate(registers).rounded())
        }
    }

    // MARK: - The dense form

    private static func registers(of hashes: [UInt64]) -> [UInt8] {
        var registers = [UInt8](repeating: 0, count: registerCount)
        for hash in hashes { add(hash, to: &registers) }
        return registers
    }

    /// The top `precision` bits choose the register; it keeps the largest position of the first 1
    /// bit in the rest (1 + leading zeros, at most 64 − precision + 1).
    private static func add(_ hash: UInt64, to registers: inout [UInt8]) {
        let index = Int(hash >> UInt64(64 - precision))
        let rank = UInt8((hash << UInt64(precision) | (1 << UInt64(precision - 1))).leadingZeroBitCount + 1)
        if rank > registers[index] { registers[index] = rank }
    }

    /// Ertl's improved raw estimator (his algorithm 6): α∞·m² / (m·σ(C₀/m) + Σₖ Cₖ·2⁻ᵏ + m·τ(1 − C_{q+1}/m)·2⁻q).
    static func estimate(_ registers: [UInt8]) -> Double {
        let q = 64 - precision
        var histogram = [Int](repeating: 0, count: q + 2)
        for value in registers { histogram[Int(value)] += 1 }
        let m = Double(registerCount)
        var z = m * tau(1 - Double(histogram[q + 1]) / m)
        for k in stride(from: q, through: 1, by: -1) { z = 0.5 * (z + Double(histogram[k])) }
        z += m * sigma(Double(histogram[0]) / m)
        return (0.5 / log(2.0)) * m * m / z
    }

    private static func sigma(_ x: Double) -> Double {
        guard x < 1 else { return .infinity }
        var x = x
        var y = 1.0
        var z = x
        while true {
            x *= x
            let previous = z
            z += x * y
            y += y
            if z == previous { return z }
        }
    }

    private static func tau(_ x: Double) -> Double {
        guard x > 0, x < 1 else { return 0 }
        var x = x
        var y = 1.0
        var z = 1 - x
        while true {
            x = x.squareRoot()
            let previous = z
            y *= 0.5
            z -= (1 - x) * (1 - x) * y
            if z == previous { return z / 3 }
        }
    }

    // MARK: - Stored form

    /// One tag byte, then the exact hashes (sorted, 8 bytes little-endian each) or the registers.
    public func encoded() -> [UInt8] {
        switch form {
        case .exact(let hashes):
            var bytes: [UInt8] = [1]
            bytes.reserveCapacity(1 + hashes.count * 8)
            for hash in hashes {
                withUnsafeBytes(of: hash.littleEndian) { bytes.append(contentsOf: $0) }
            }
            return bytes
        case .dense(let registers):
            return [2] + registers
        }
    }

    /// The bytes `encoded()` wrote; anything else is a `SketchDecodingError` (a damaged row).
    public init(encoded bytes: [UInt8]) throws(SketchDecodingError) {
        guard let tag = bytes.first else { throw SketchDecodingError(reason: "empty") }
        switch tag {
        case 1:
            let count = (bytes.count - 1) / 8
            guard (bytes.count - 1) % 8 == 0, count <= Self.exactLimit else {
                throw SketchDecodingError(reason: "an exact sketch of \(bytes.count - 1) bytes")
            }
            let hashes = bytes.withUnsafeBytes { raw in
                (0..<count).map { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 1 + $0 * 8, as: UInt64.self)) }
            }
            // Written ascending without repeats; anything else is damage, and would break the merges.
            guard zip(hashes, hashes.dropFirst()).allSatisfy({ $0 < $1 }) else {
                throw SketchDecodingError(reason: "an exact sketch whose hashes are not ascending")
            }
            form = .exact(hashes)
        case 2:
            guard bytes.count == 1 + Self.registerCount else {
                throw SketchDecodingError(reason: "a dense sketch of \(bytes.count - 1) bytes")
            }
            let registers = Array(bytes[1...])
            // The largest register in one pass over a raw buffer (vectorised), not a closure per byte.
            let largest = registers.withUnsafeBufferPointer { registers in
                var largest: UInt8 = 0
                for value in registers { largest = Swift.max(largest, value) }
                return largest
            }
            guard Int(largest) <= 64 - Self.precision + 1 else {
                throw SketchDecodingError(reason: "a dense register of \(largest)")
            }
            form = .dense(registers)
        default:
            throw SketchDecodingError(reason: "the unknown form \(tag)")
        }
    }
}

/// The exact form's operations on an ascending array of hashes without repeats.
enum ExactHashes {
    /// Where `hash` is, or would be inserted.
    static func index(of hash: UInt64, in hashes: [UInt64]) -> Int {
        var low = 0
        var high = hashes.count
        while low < high {
            let middle = (low + high) / 2
            if hashes[middle] < hash { low = middle + 1 } else { high = middle }
        }
        return low
    }

    static func insert(_ hash: UInt64, into hashes: inout [UInt64]) {
        let at = index(of: hash, in: hashes)
        if at == hashes.count || hashes[at] != hash { hashes.insert(hash, at: at) }
    }

    static func remove(_ hash: UInt64, from hashes: inout [UInt64]) {
        let at = index(of: hash, in: hashes)
        if at < hashes.count, hashes[at] == hash { hashes.remove(at: at) }
    }

    /// Both arrays' hashes, ascending, each once: one pass over both.
    static func union(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        if a.isEmpty { return b }
        if b.isEmpty { return a }
        var out: [UInt64] = []
        out.reserveCapacity(a.count + b.count)
        var i = 0
        var j = 0
        while i < a.count, j < b.count {
            if a[i] < b[j] {
                out.append(a[i])
                i += 1
            } else if b[j] < a[i] {
                out.append(b[j])
                j += 1
            } else {
                out.append(a[i])
                i += 1
                j += 1
            }
        }
        out += a[i...]
        out += b[j...]
        return out
    }
}

/// A stored sketch that `SubscriberSketch.init(encoded:)` cannot read.
public struct SketchDecodingError: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { "a subscriber sketch is damaged: \(reason)" }
}

/// A subscriber id's 64-bit hash, the same in every process and release (Swift's `Hasher` is seeded
/// per process, so stored sketches cannot use it): FNV-1a over the UTF-8 bytes, then MurmurHash3's
/// 64-bit finalizer so every output bit depends on every input bit (HyperLogLog reads the top bits
/// and the leading zeros of the rest).
enum SubscriberHash {
    static func of(_ id: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        hash ^= hash >> 33
        hash = hash &* 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        hash = hash &* 0xc4ce_b9fe_1a85_ec53
        hash ^= hash >> 33
        return hash
    }
}
