import Foundation

/// Exponential backoff with jitter, as a value: `delay(after:)` says how long to wait before the
/// next attempt, given how many consecutive attempts have failed.
struct Backoff: Sendable {
    var initial: TimeInterval
    var maximum: TimeInterval

    /// "Equal jitter": half the exponential delay plus a random share of the other half, so a
    /// fleet of devices that lost the network together does not come back in step, while each
    /// still waits at least half the nominal delay. A `Retry-After` is a floor, never shortened.
    func delay(
        afterFailures failures: Int, retryAfter: TimeInterval?,
        random: (ClosedRange<Double>) -> Double = { Double.random(in: $0) }
    ) -> TimeInterval {
        precondition(failures >= 1, "a delay follows a failure")
        let exponent = Double(min(failures - 1, 30))
        let nominal = min(maximum, initial * pow(2, exponent))
        let jittered = nominal / 2 + random(0...1) * nominal / 2
        guard let retryAfter else { return jittered }
        // Honour the server's floor; a little spread above it keeps clients from returning together.
        return max(jittered, retryAfter + random(0...1) * min(1, retryAfter / 10))
    }
}
