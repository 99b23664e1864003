import HTTP
import XizorDomain

/// How the SDK's answers meet shared caches (docs/scaling.md, "Edge delivery"). An answer of the
/// path form that nothing of the subscriber decided is `public` with `s-maxage`, and its `Vary`
/// names only the request headers that decided it; every other answer is the client's own. Purges
/// (`CachePurger`) make a change live at once; `s-maxage` bounds the staleness when one fails.
public struct EdgeCaching: Sendable {
    /// `cache.sharedMaxAgeSeconds`: how long a shared cache may serve an answer without asking.
    public var sharedMaxAgeSeconds = 60
    /// `cache.staleWhileRevalidateSeconds`: how long past that it may serve it while it asks.
    public var staleWhileRevalidateSeconds = 30
    /// `cache.staleIfErrorSeconds`: how long past that it may serve it while the origin fails.
    public var staleIfErrorSeconds = 86_400

    public init() {}

    var sharedCacheControl: String {
        "public, max-age=0, s-maxage=\(sharedMaxAgeSeconds), stale-while-revalidate=\(staleWhileRevalidateSeconds), "
            + "stale-if-error=\(staleIfErrorSeconds)"
    }

    /// What one answer may be to a cache, and which request headers decided it: part of its
    /// representation's key (`bits`), since both are written into its headers.
    public struct Answer: Sendable {
        let surface: PaywallDelivery.Surface
        /// Whether a shared cache may keep it.
        let shared: Bool
        let consulted: RequestFacts.Consulted
        private(set) var acceptLanguage = false
        private(set) var colorSchemeHint = false
        private(set) var platformForm = false
        /// The settings, for `cacheControl` (written only when an answer is built, not per request).
        private let policy: EdgeCaching

        init(
            surface: PaywallDelivery.Surface, consulted: RequestFacts.Consulted, nonce: String?,
            nextScheduleChange: Int64?, now: @autoclosure () -> Int64, policy: EdgeCaching
        ) {
            self.surface = surface
            self.consulted = consulted
            // A rule starting or ending within the shared lifetime would be outlived by a kept copy.
            // The clock is read only when a change is scheduled.
            let scheduleAllows =
                nextScheduleChange.map { $0 - now() > Int64(policy.sharedMaxAgeSeconds) * 1000 } ?? true
            shared = surface == .edge && !consulted.subscriber && nonce == nil && scheduleAllows
            self.policy = policy
        }

        /// The answer's `Cache-Control`.
        var cacheControl: String {
            switch surface {
            case .authenticated: "no-cache"
            case .edge: shared ? policy.sharedCacheControl : "private, no-cache"
            }
        }

        /// Records what negotiation read: `Accept-Language` (no `locale` in the URL, several
        /// locales), the colour-scheme hint (no `colorScheme` in the URL, and the form or page
        /// depends on it), the platform (the form's store).
        mutating func negotiated(locale: Bool, colorScheme: Bool, platform: Bool) {
            acceptLanguage = locale
            colorSchemeHint = colorScheme
            platformForm = platform
        }

        /// The representation key's part: everything above that changes the headers.
        var bits: UInt32 {
            var bits: UInt32 = surface == .edge ? 1 << 31 : 0
            if shared { bits |= 1 }
            if acceptLanguage { bits |= 2 }
            if colorSchemeHint { bits |= 4 }
            if platformForm { bits |= 8 }
            return bits | UInt32(consulted.device) << 8
        }

        /// The answer's `Vary`: what decided it, in a stable order so equal answers carry equal
        /// headers (Accept-Encoding is added by the HTTP layer). The same for both surfaces: the
        /// authenticated form is kept by no shared cache, but a client's own cache (URLCache,
        /// OkHttp's) honours `Vary` as well, and naming what the placement never reads only makes
        /// every 304 longer.
        func vary(countryHeader: String?) -> String {
            var names = ["Accept", "X-Xizor-Schema-Version"]
            if acceptLanguage { names.append("Accept-Language") }
            if colorSchemeHint { names.append("Sec-CH-Prefers-Color-Scheme") }
            for name in RequestAttributes.Name.allCases {
                let read = consulted.read(name) || (name == .platform && platformForm)
                guard read else { continue }
                if let header = name.header {
                    names.append(header)
                } else if name == .country, let countryHeader {
                    names.append(countryHeader)
                }
            }
            // Not the subscriber, even on a private answer: no shared cache stores it, and a cache's
            // marker "pass this URL" must stay one per URL, not one per subscriber (which Varnish
            // walks on every lookup: bench/edge.bench.sh measured 771 → 2,284 µs a request).
            return names.joined(separator: ", ")
        }
    }
}
