import Testing

@testable import XizorAPI
@testable import XizorDomain

@Suite struct AllocationTests {
    /// Shares of 100,000 synthetic subscribers per slot (variants, then the holdout).
    func shares(_ allocation: [UInt8], slots: Int, experiment: String = "exp_split") -> [Double] {
        var counts = [Int](repeating: 0, count: slots)
        for i in 0..<100_000 {
            let slot = allocation[Allocation.bucket(experimentID: experiment, subscriberID: "subscriber-\(i)")]
            counts[slot == Allocation.holdout ? slots - 1 : Int(slot)] += 1
        }
        return counts.map { Double($0) / 100_000 }
    }

    @Test(arguments: [([50, 50], 0), ([1, 1, 1], 0), ([70, 20, 10], 0), ([45, 45], 10), ([1, 2, 3, 4, 5], 5)])
    func splitFollowsTheWeightsWithinOnePercent(weights: [Int], holdout: Int) {
        let allocation = Allocation.initial(weights: weights, holdoutWeight: holdout)
        let total = Double(weights.reduce(0, +) + holdout)
        let expected = (weights + [holdout]).map { Double($0) / total }
        let measured = shares(allocation, slots: weights.count + 1)
        for (e, m) in zip(expected, measured) {
            #expect(abs(e - m) < 0.01, "expected \(expected), measured \(measured)")
        }
    }

    @Test func bucketsAreStableAndSpread() {
        #expect(
            Allocation.bucket(experimentID: "exp_a", subscriberID: "s1")
                == Allocation.bucket(experimentID: "exp_a", subscriberID: "s1"))
        // SHA-256("exp_a:s1"), first 8 bytes big-endian, mod 10,000 (computed with Python's hashlib):
        // a fixed value every server and device agrees on.
        #expect(Allocation.bucket(experimentID: "exp_a", subscriberID: "s1") == 8594)
        let buckets = Set((0..<1000).map { Allocation.bucket(experimentID: "exp_a", subscriberID: "s\($0)") })
        #expect(buckets.count > 940)  // 1,000 draws from 10,000 buckets: about 951 distinct
        // Different experiments split independently.
        let same = (0..<1000).filter {
            Allocation.bucket(experimentID: "exp_a", subscriberID: "s\($0)")
                == Allocation.bucket(experimentID: "exp_b", subscriberID: "s\($0)")
        }
        #expect(same.count < 5)
    }

    /// Moving from one split to another must move exactly the total variation distance.
    @Test(arguments: [
        ([50, 50], 0, [70, 30], 0),
        ([50, 50], 0, [50, 50], 20),
        ([1, 1, 1], 0, [2, 1, 1], 0),
        ([30, 30, 40], 10, [40, 40, 20], 0),
        ([90, 10], 0, [10, 90], 0),
    ])
    func weightChangesMoveTheMinimalShare(old: [Int], oldHoldout: Int, new: [Int], newHoldout: Int) {
        let before = Allocation.initial(weights: old, holdoutWeight: oldHoldout)
        let after = Allocation.rebalance(before, weights: new, holdoutWeight: newHoldout)
        let moved = zip(before, after).filter { $0 != $1 }.count
        let oldShares = (old + [oldHoldout]).map { Double($0) / Double(old.reduce(0, +) + oldHoldout) }
        let newShares = (new + [newHoldout]).map { Double($0) / Double(new.reduce(0, +) + newHoldout) }
        let distance = zip(oldShares, newShares).map { max(0, $0 - $1) }.reduce(0, +)
        #expect(
            abs(Double(moved) / Double(Allocation.bucketCount) - distance) <= 0.0003,
            "moved \(moved) buckets, distance \(distance)")
        // And the new allocation has the new split.
        let counts = (0..<(new.count + 1)).map { slot in
            after.filter { ($0 == Allocation.holdout ? new.count : Int($0)) == slot }.count
        }
        for (count, share) in zip(counts, newShares) { #expect(abs(Double(count) / 10_000 - share) <= 0.0002) }
    }

    @Test func aSubscriberOnlyMovesWhenTheirBucketMoves() {
        let before = Allocation.initial(weights: [50, 50], holdoutWeight: 0)
        let after = Allocation.rebalance(before, weights: [60, 40], holdoutWeight: 0)
        var movedToControl = 0
        var movedAway = 0
        for i in 0..<100_000 {
            let b = Allocation.bucket(experimentID: "exp_move", subscriberID: "s\(i)")
            if before[b] != after[b] { if after[b] == 0 { movedToControl += 1 } else { movedAway += 1 } }
        }
        #expect(movedAway == 0)
        #expect(abs(Double(movedToControl) / 100_000 - 0.10) < 0.01)
    }
}
