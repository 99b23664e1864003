import Digest

/// Sticky assignment without storage on the hot path. A subscriber's bucket is a stable hash of
/// (experiment id, subscriber id) into 10,000 buckets; the experiment stores which slot (variant, or
/// the holdout) each bucket belongs to. When weights change, only the buckets a shrinking slot must
/// give up move, and only to slots that must grow: the fewest subscribers the new weights require
/// (the total variation distance between the old and new splits, to 0.01 %).
public enum Allocation {
    public static let bucketCount = 10_000
    public static let holdout: UInt8 = 255
    static let unassigned: UInt8 = 254

    /// The bucket of a subscriber: the first 8 bytes of SHA-256("experimentID:subscriberID"),
    /// big-endian, modulo 10,000. The same on every device and server.
    public static func bucket(experimentID: String, subscriberID: String) -> Int {
        let digest = SHA256.hash(Array("\(experimentID):\(subscriberID)".utf8))
        var value: UInt64 = 0
        for byte in digest.prefix(8) { value = value << 8 | UInt64(byte) }
        return Int(value % UInt64(bucketCount))
    }

    /// Bucket counts per slot for `weights` (variants in order, then the holdout), by largest remainder.
    static func targetCounts(weights: [Int], holdoutWeight: Int) -> [Int] {
        let all = weights + [holdoutWeight]
        let total = all.reduce(0, +)
        guard total > 0 else { return all.map { _ in 0 } }
        var counts = all.map { $0 * bucketCount / total }
        let remainders = all.enumerated().map { ($0.offset, ($0.element * bucketCount) % total) }
        var missing = bucketCount - counts.reduce(0, +)
        for (slot, _) in remainders.sorted(by: { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }) where missing > 0 {
            counts[slot] += 1
            missing -= 1
        }
        return counts
    }

    /// A fresh allocation for `weights`.
    public static func initial(weights: [Int], holdoutWeight: Int) -> [UInt8] {
        rebalance([UInt8](repeating: unassigned, count: bucketCount), weights: weights, holdoutWeight: holdoutWeight)
    }

    /// `current` changed to fit new weights with the fewest buckets moved: each slot above its new
    /// count gives up its highest-numbered buckets; slots below their count take them in order.
    public static func rebalance(_ current: [UInt8], weights: [Int], holdoutWeight: Int) -> [UInt8] {
        let targets = targetCounts(weights: weights, holdoutWeight: holdoutWeight)
        let slotCount = targets.count
        func slotIndex(_ value: UInt8) -> Int? {
            if value == holdout { return slotCount - 1 }
            return Int(value) < slotCount - 1 ? Int(value) : nil
        }
        func value(ofSlot slot: Int) -> UInt8 { slot == slotCount - 1 ? holdout : UInt8(slot) }
        var allocation = current.count == bucketCount ? current : [UInt8](repeating: unassigned, count: bucketCount)
        var counts = [Int](repeating: 0, count: slotCount)
        for (bucket, v) in allocation.enumerated() {
            if let slot = slotIndex(v) { counts[slot] += 1 } else { allocation[bucket] = unassigned }
        }
        for bucket in stride(from: bucketCount - 1, through: 0, by: -1) {
            guard let slot = slotIndex(allocation[bucket]), counts[slot] > targets[slot] else { continue }
            allocation[bucket] = unassigned
            counts[slot] -= 1
        }
        var slot = 0
        for bucket in 0..<bucketCount where allocation[bucket] == unassigned {
            while slot < slotCount && counts[slot] >= targets[slot] { slot += 1 }
            guard slot < slotCount else { break }
            allocation[bucket] = value(ofSlot: slot)
            counts[slot] += 1
        }
        return allocation
    }
}
