import Dispatch
import Synchronization

/// A token bucket's shape: `perSecond` tokens refill every second up to `burst`. A rate of 0
/// turns the limit off.
public struct RateLimit: Sendable, Equatable {
    public var perSecond: Int
    public var burst: Int
    public init(perSecond: Int, burst: Int) {
        self.perSecond = perSecond
        self.burst = burst
    }
    public static let disabled = RateLimit(perSecond: 0, burst: 0)
    public var isEnabled: Bool { perSecond > 0 }
}

/// Token buckets per key (an app's public key, an app's secret key, the admin token). The table
/// grows with the number of keys that passed authentication, never with what clients send.
package final class RateLimiter: Sendable {
    package enum Decision: Equatable {
        case allowed
        /// Refused; a token is available again after this many whole seconds.
        case limited(retryAfterSeconds: Int)
    }

    struct Bucket {
        var tokens: Double
        var updatedMicros: Int64
    }

    package let limit: RateLimit
    /// Tokens added per second: `limit.perSecond`, or a finer rate (a limit per minute).
    let refillPerSecond: Double
    /// Past this many buckets, the idle ones (refilled to full, so forgetting them changes
    /// nothing) are dropped; a table keyed by client addresses must not grow with an attacker.
    let maxBuckets: Int
    private let buckets = Mutex<[BucketKey: Bucket]>([:])

    package init(limit: RateLimit, maxBuckets: Int = 100_000, refillPerSecond: Double? = nil) {
        self.limit = limit
        self.maxBuckets = maxBuckets
        self.refillPerSecond = refillPerSecond ?? Double(limit.perSecond)
    }

    /// How many buckets the table holds now.
    var bucketCount: Int { buckets.withLock { $0.count } }

    /// Whether `key`'s bucket holds a whole token now (nothing is taken).
    package func hasToken(_ key: BucketKey, nowMicros: Int64) -> Bool {
        let rate = refillPerSecond
        let capacity = Double(max(1, limit.burst))
        return buckets.withLock { table in
            guard let bucket = table[key] else { return true }
            let elapsed = Double(max(0, nowMicros - bucket.updatedMicros)) / 1_000_000
            return min(capacity, bucket.tokens + elapsed * rate) >= 1
        }
    }

    /// Takes `tokens` tokens (all or none) from `key`'s bucket at time `nowMicros` (monotonic).
    package func take(_ key: BucketKey, nowMicros: Int64, tokens wanted: Int = 1) -> Decision {
        precondition(wanted >= 1, "a request takes at least one token")
        let need = Double(wanted)
        let rate = refillPerSecond
        let capacity = Double(max(1, limit.burst))
        return buckets.withLock { table in
            if table[key] == nil && table.count >= maxBuckets {
                RateLimiter.forgetIdle(
                    &table, nowMicros: nowMicros, rate: rate, capacity: capacity, maxBuckets: maxBuckets)
            }
            var bucket = table[key] ?? Bucket(tokens: capacity, updatedMicros: nowMicros)
            let elapsed = Double(max(0, nowMicros - bucket.updatedMicros)) / 1_000_000
            bucket.tokens = min(capacity, bucket.tokens + elapsed * rate)
            bucket.updatedMicros = nowMicros
            if bucket.tokens >= need {
                bucket.tokens -= need
                table[key] = bucket
                return .allowed
            }
            table[key] = bucket
            let wait = (min(need, capacity) - bucket.tokens) / rate
            return .limited(retryAfterSeconds: max(1, Int(wait.rounded(.up))))
        }
    }
}

extension RateLimiter {
    /// Drops the buckets that have refilled (forgetting one is the same as keeping it full); when
    /// too many are still draining, arbitrary ones down to half the cap, so the table stays
    /// bounded either way.
    fileprivate static func forgetIdle(
        _ table: inout [BucketKey: Bucket], nowMicros: Int64, rate: Double, capacity: Double,
        maxBuckets: Int
    ) {
        table = table.filter { _, bucket in
            bucket.tokens + Double(max(0, nowMicros - bucket.updatedMicros)) / 1_000_000 * rate < capacity
        }
        guard table.count >= maxBuckets else { return }
        for key in Array(table.keys.prefix(table.count - maxBuckets / 2)) { table[key] = nil }
    }
}

/// Whose bucket a request draws from: the kind of key and its app, or (for failed
/// authentications) the client's address.
package struct BucketKey: Hashable, Sendable {
    package enum Kind: UInt8, Hashable, Sendable { case admin, secret, publicKey, client, subscriber, store, person }
    package let kind: Kind
    /// The app of a key (empty for the admin token), the client's host, an app's subscriber, or the app
    /// whose store notifications these are.
    package let owner: String

    /// The bucket of one subscriber of an app (`SubscriberEventLimit`); a NUL cannot be in an app id.
    package init(app: String, subscriber: String) {
        kind = .subscriber
        owner = app + "\u{0}" + subscriber
    }

    /// The bucket of an app's store notifications (docs/revenue.md): apart from its keys' buckets, so
    /// the stores and the app's own dashboard never spend each other's.
    package init(storeNotificationsOf app: String) {
        kind = .store
        owner = app
    }

    /// The bucket of a client address (`host` without the port).
    package init(client host: String) {
        kind = .client
        owner = host
    }

    package init(_ principal: Principal) {
        switch principal {
        case .admin:
            kind = .admin
            owner = ""
        case .secret(let id):
            kind = .secret
            owner = id
        case .publicKey(let id):
            kind = .publicKey
            owner = id
        case .person(let id):
            kind = .person
            owner = id
        }
    }
}
