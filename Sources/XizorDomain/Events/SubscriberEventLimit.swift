import Synchronization

/// At most `perMinute` events per subscriber per minute, whatever key sends them (docs/sdk.md,
/// "Events per subscriber"). A device presents a paywall a few times a minute at most, each
/// presentation a handful of events; a flood for one subscriber is a client bug or an attack, and
/// every event of a subscriber is what a frequency cap and a deletion read. A token bucket per
/// (app, subscriber), refilled at `perMinute / 60` per second up to `perMinute`: the table is
/// bounded (idle buckets are forgotten, `RateLimiter`), so neither memory nor the check grows with
/// how many subscribers an app has.
package final class SubscriberEventLimit: Sendable {
    let perMinute: Int
    private let limiter: RateLimiter
    private let refused = Atomic<Int>(0)

    init(perMinute: Int, maxBuckets: Int = 200_000) {
        precondition(perMinute > 0, "a per-subscriber limit is positive (0 is no limit: no SubscriberEventLimit)")
        self.perMinute = perMinute
        limiter = RateLimiter(
            limit: RateLimit(perSecond: perMinute, burst: perMinute), maxBuckets: maxBuckets,
            refillPerSecond: Double(perMinute) / 60)
    }

    /// Batches refused because a subscriber in them was past its limit (`/metrics`).
    package var refusedBatches: Int { refused.load(ordering: .relaxed) }

    /// Takes each subscriber's events of a batch from its bucket; 429 `subscriber_rate_limited`
    /// (with `Retry-After`, the batch unstored) when one of them has not that many left. The SDK
    /// retries the whole batch later, and its events count once by their ids.
    func admit(appID: String, eventsBySubscriber counts: [String: Int], nowMicros: Int64) throws {
        for (subscriber, count) in counts.sorted(by: { $0.key < $1.key }) {
            if case .limited(let seconds) = limiter.take(
                BucketKey(app: appID, subscriber: subscriber), nowMicros: nowMicros, tokens: count)
            {
                refused.add(1, ordering: .relaxed)
                throw ServiceError(
                    .tooManyRequests, "subscriber_rate_limited",
                    "Too many events for subscriber '\(subscriber.prefix(64))': at most \(perMinute) per minute. Retry after \(seconds) s.",
                    retryAfterSeconds: seconds)
            }
        }
    }
}
