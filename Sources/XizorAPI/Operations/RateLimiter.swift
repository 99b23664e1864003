import Dispatch
import HTTP
import Synchronization
import XizorDomain

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
