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
    private let buckets = Mutex<[BucketKey: Bucket]>([:])

    init(limit: RateLimit) { self.limit = limit }

    /// Takes `tokens` tokens (all or none) from `key`'s bucket at time `nowMicros` (monotonic).
    func take(_ key: BucketKey, nowMicros: Int64, tokens wanted: Int = 1) -> Decision {
        precondition(wanted >= 1, "a request takes at least one token")
        let need = Double(wanted)
        let rate = Double(limit.perSecond)
        let capacity = Double(max(1, limit.burst))
        return buckets.withLock { table in
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

/// Whose bucket a request draws from: the kind of key and its app.
struct BucketKey: Hashable, Sendable {
    enum Kind: UInt8, Hashable, Sendable { case admin, secret, publicKey }
    let kind: Kind
    let appID: String

    init(_ principal: Principal) {
        switch principal {
        case .admin: kind = .admin; appID = ""
        case .secret(let id): kind = .secret; appID = id
        case .publicKey(let id): kind = .publicKey; appID = id
        }
    }
}

/// Which limit a request falls under, if any.
enum RateLimitClass: Int, CaseIterable, Sendable {
    /// `POST /v1/sdk/events` and `POST /v1/sdk/timers`: what every installed app sends.
    case events
    /// Every other request with a method other than GET, HEAD or OPTIONS (dashboard and `/mcp`).
    case writes

    var label: String { self == .events ? "events" : "writes" }

    static func of(_ request: HTTPRequest) -> RateLimitClass? {
        switch request.method {
        case .GET, .HEAD, .OPTIONS: return nil
        default: break
        }
        guard let route = request.routeTemplate else { return nil }
        if route == "/v1/sdk/events" || route == "/v1/sdk/timers" { return .events }
        if route.hasPrefix("/v1/sdk/") { return nil }
        return .writes
    }
}

/// The limits a request falls under, applied by the route's admission once its key is verified
/// (so unknown keys never create buckets, and a refused request's body is never read).
struct RateLimits: Sendable {
    let events: RateLimiter?
    let writes: RateLimiter?
    let counters: RateLimitCounters

    /// Takes one token from `key`'s bucket for the request's class; 429 with `Retry-After` when
    /// the bucket is empty.
    func take(for request: HTTPRequest, key: VerifiedKey) throws {
        guard let kind = RateLimitClass.of(request) else { return }
        try take(kind, key: BucketKey(key.principal), tokens: 1)
    }

    /// Takes `tokens` more from a bucket for work one request carries several of (the messages
    /// of an MCP batch beyond the first, which its admission paid for).
    func take(_ kind: RateLimitClass, key: BucketKey, tokens: Int) throws {
        guard let limiter = kind == .events ? events : writes else { return }
        switch limiter.take(key, nowMicros: Int64(DispatchTime.now().uptimeNanoseconds / 1000), tokens: tokens) {
        case .allowed:
            return
        case .limited(let seconds):
            counters.record(kind)
            throw HTTPError(.tooManyRequests, code: "rate_limited",
                            detail: "Too many \(kind.label) requests for this key: at most \(limiter.limit.perSecond) per second (bursts of \(limiter.limit.burst)). Retry after \(seconds) s.",
                            headers: ["Retry-After": String(seconds)])
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
