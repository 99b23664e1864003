import Dispatch
import HTTP
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
final class RateLimiter: Sendable {
    enum Decision: Equatable {
        case allowed
        /// Refused; a token is available again after this many whole seconds.
        case limited(retryAfterSeconds: Int)
    }

    struct Bucket {
        var tokens: Double
        var updatedMicros: Int64
    }

    let limit: RateLimit
    /// Tokens added per second: `limit.perSecond`, or a finer rate (a limit per minute).
    let refillPerSecond: Double
    /// Past this many buckets, the idle ones (refilled to full, so forgetting them changes
    /// nothing) are dropped; a table keyed by client addresses must not grow with an attacker.
    let maxBuckets: Int
    private let buckets = Mutex<[BucketKey: Bucket]>([:])

    init(limit: RateLimit, maxBuckets: Int = 100_000, refillPerSecond: Double? = nil) {
        self.limit = limit
        self.maxBuckets = maxBuckets
        self.refillPerSecond = refillPerSecond ?? Double(limit.perSecond)
    }

    /// How many buckets the table holds now.
    var bucketCount: Int { buckets.withLock { $0.count } }

    /// Whether `key`'s bucket holds a whole token now (nothing is taken).
    func hasToken(_ key: BucketKey, nowMicros: Int64) -> Bool {
        let rate = refillPerSecond
        let capacity = Double(max(1, limit.burst))
        return buckets.withLock { table in
            guard let bucket = table[key] else { return true }
            let elapsed = Double(max(0, nowMicros - bucket.updatedMicros)) / 1_000_000
            return min(capacity, bucket.tokens + elapsed * rate) >= 1
        }
    }

    /// Takes `tokens` tokens (all or none) from `key`'s bucket at time `nowMicros` (monotonic).
    func take(_ key: BucketKey, nowMicros: Int64, tokens wanted: Int = 1) -> Decision {
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
struct BucketKey: Hashable, Sendable {
    enum Kind: UInt8, Hashable, Sendable { case admin, secret, publicKey, client, subscriber }
    let kind: Kind
    /// The app of a key (empty for the admin token), the client's host, or an app's subscriber.
    let owner: String

    /// The bucket of one subscriber of an app (`SubscriberEventLimit`); a NUL cannot be in an app id.
    init(app: String, subscriber: String) {
        kind = .subscriber
        owner = app + "\u{0}" + subscriber
    }

    /// The bucket of a client address (`host` without the port).
    init(client host: String) {
        kind = .client
        owner = host
    }

    init(_ principal: Principal) {
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
        }
    }
}

/// Which limit a request falls under, if any.
enum RateLimitClass: Int, CaseIterable, Sendable {
    /// The SDK's writes (`POST /v1/sdk/events`, `POST /v1/sdk/timers`, `PUT /v1/sdk/subscribers/{id}/attributes`):
    /// what every installed app sends.
    case events
    /// Every other request with a method other than GET, HEAD or OPTIONS (dashboard and `/mcp`).
    case writes
    /// Failed authentications (missing, malformed or unknown keys) per client address.
    case authFailures

    var label: String {
        switch self {
        case .events: "events"
        case .writes: "writes"
        case .authFailures: "auth_failures"
        }
    }

    static func of(_ request: HTTPRequest) -> RateLimitClass? {
        switch request.method {
        case .GET, .HEAD, .OPTIONS: return nil
        default: break
        }
        guard let route = request.routeTemplate else { return nil }
        return route.hasPrefix("/v1/sdk/") ? .events : .writes
    }
}

/// The limits a request falls under, applied by the route's admission once its key is verified
/// (so unknown keys never create buckets, and a refused request's body is never read).
struct RateLimits: Sendable {
    let events: RateLimiter?
    let writes: RateLimiter?
    /// Failed authentications per client address (nil: unlimited).
    let authFailures: RateLimiter?
    let counters: RateLimitCounters

    private func limiter(_ kind: RateLimitClass) -> RateLimiter? {
        switch kind {
        case .events: events
        case .writes: writes
        case .authFailures: authFailures
        }
    }

    private static var nowMicros: Int64 { Int64(DispatchTime.now().uptimeNanoseconds / 1000) }

    /// Before an unknown credential is checked: 429 when the client's failures have used up its
    /// bucket, without hashing (or revealing anything about) what it sent. Keys verified before are
    /// answered from memory ahead of this, so a client sharing an address with a guesser keeps
    /// working.
    func admitUnverified(_ request: HTTPRequest) throws {
        guard let limiter = authFailures else { return }
        let client = BucketKey(client: RateLimits.host(of: request.remoteAddress))
        if !limiter.hasToken(client, nowMicros: RateLimits.nowMicros) {
            try refuse(.authFailures, limiter, retryAfter: 1)
        }
    }

    /// A failed authentication: takes a token from the client's bucket; 429 (instead of the 401)
    /// once it is empty.
    func failedAuthentication(_ request: HTTPRequest) throws {
        guard authFailures != nil else { return }
        try take(.authFailures, key: BucketKey(client: RateLimits.host(of: request.remoteAddress)), tokens: 1)
    }

    /// `host` of `host:port` or `[v6]:port`.
    static func host(of address: String) -> String {
        if address.hasPrefix("["), let end = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<end])
        }
        guard let colon = address.lastIndex(of: ":") else { return address }
        return String(address[..<colon])
    }

    private func refuse(_ kind: RateLimitClass, _ limiter: RateLimiter, retryAfter seconds: Int) throws -> Never {
        counters.record(kind)
        let what =
            kind == .authFailures ? "failed authentications from this address" : "\(kind.label) requests for this key"
        throw HTTPError(
            .tooManyRequests, code: "rate_limited",
            detail:
                "Too many \(what): at most \(limiter.limit.perSecond) per second (bursts of \(limiter.limit.burst)). Retry after \(seconds) s.",
            headers: ["Retry-After": String(seconds)])
    }

    /// Takes one token from `key`'s bucket for the request's class; 429 with `Retry-After` when
    /// the bucket is empty.
    func take(for request: HTTPRequest, key: VerifiedKey) throws {
        guard let kind = RateLimitClass.of(request) else { return }
        try take(kind, key: BucketKey(key.principal), tokens: 1)
    }

    /// Takes `tokens` more from a bucket for work one request carries several of (the messages
    /// of an MCP batch beyond the first, which its admission paid for).
    func take(_ kind: RateLimitClass, key: BucketKey, tokens: Int) throws {
        guard let limiter = limiter(kind) else { return }
        switch limiter.take(key, nowMicros: RateLimits.nowMicros, tokens: tokens) {
        case .allowed:
            return
        case .limited(let seconds):
            try refuse(kind, limiter, retryAfter: seconds)
        }
    }
}

/// Requests refused by each limit, for `/metrics`.
public final class RateLimitCounters: Sendable {
    private let counts = AtomicCounters(count: RateLimitClass.allCases.count)
    public init() {}
    func record(_ kind: RateLimitClass) { counts.add(kind.rawValue) }
    func count(_ kind: RateLimitClass) -> Int { counts.load(kind.rawValue) }
}
