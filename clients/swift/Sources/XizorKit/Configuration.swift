import Foundation

/// Everything XizorKit needs, given once at start-up (`Xizor(configuration:)`).
public struct XizorConfiguration: Sendable {
    /// The app's public key (`pk_…`). Secret keys are refused by the SDK endpoints: they stay on servers.
    public var publicKey: String
    /// The server, e.g. `https://api.xizor.dev`.
    public var baseURL: URL
    /// Where answers, the event queue and timer starts are kept between launches.
    public var cacheDirectory: URL
    /// The newest paywall document format the app's renderer reads (`X-Xizor-Schema-Version`).
    /// The server down-migrates newer documents to it; bundled fallbacks newer than it are skipped.
    public var schemaVersion: Int
    /// How long a presentation waits for the network before it is answered from the disk cache or
    /// the bundled fallback; the network request goes on and refreshes the cache for next time.
    public var cacheTimeout: TimeInterval
    /// The limit of one request, and how long a presentation with nothing cached waits at most.
    public var requestTimeout: TimeInterval
    /// The server's fallback bundle (`GET /v1/sdk/fallback-bundle`) shipped in the app: the last
    /// step of the chain, for a first launch without network.
    public var fallbackBundle: URL?
    public var events: EventSettings
    /// The app's version as rules compare it (`device.appVersion`); nil: the bundle's
    /// `CFBundleShortVersionString`.
    public var appVersion: String?
    /// Whether paywall answers' signatures are checked (`GET /v1/sdk/signing-keys` publishes the keys to
    /// pin), and whether an answer that fails is refused or only reported. Off by default: pinning
    /// keys ties the app to the server's keys, a decision an app makes knowingly.
    public var verification: SignatureVerification

    public init(
        publicKey: String, baseURL: URL, cacheDirectory: URL? = nil, schemaVersion: Int = 2,
        cacheTimeout: TimeInterval = 1, requestTimeout: TimeInterval = 10,
        fallbackBundle: URL? = nil, events: EventSettings = EventSettings(),
        verification: SignatureVerification = .disabled
    ) {
        self.publicKey = publicKey
        self.baseURL = baseURL
        self.cacheDirectory = cacheDirectory ?? XizorConfiguration.defaultCacheDirectory
        self.schemaVersion = schemaVersion
        self.cacheTimeout = cacheTimeout
        self.requestTimeout = requestTimeout
        self.fallbackBundle = fallbackBundle
        self.events = events
        self.verification = verification
    }

    /// `Library/Caches/Xizor` on Apple platforms, `$XDG_CACHE_HOME/xizor` (or the temporary directory) elsewhere.
    public static var defaultCacheDirectory: URL {
        let caches =
            FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return caches.appendingPathComponent("Xizor", isDirectory: true)
    }
}

/// How the event queue batches, flushes and retries.
public struct EventSettings: Sendable {
    /// Events per request; the server takes at most 500.
    public var batchSize: Int
    /// A batch is sent once this many events wait, and at least every `flushInterval` seconds.
    public var flushInterval: TimeInterval
    /// Beyond this many queued events the oldest are dropped (and reported): a device offline for
    /// months must not fill its disk.
    public var maxQueued: Int
    /// Exponential backoff after a failed send: `initialBackoff × 2^attempt`, at most `maxBackoff`,
    /// with jitter; a `Retry-After` from the server is honoured when it is longer.
    public var initialBackoff: TimeInterval
    public var maxBackoff: TimeInterval
    /// Told about deliveries, drops and retries (on an arbitrary thread).
    public var onReport: (@Sendable (EventReport) -> Void)?

    public init(
        batchSize: Int = 500, flushInterval: TimeInterval = 30, maxQueued: Int = 10_000,
        initialBackoff: TimeInterval = 1, maxBackoff: TimeInterval = 300,
        onReport: (@Sendable (EventReport) -> Void)? = nil
    ) {
        precondition((1...500).contains(batchSize), "the server takes 1 to 500 events per batch")
        precondition(maxQueued >= batchSize && flushInterval > 0 && initialBackoff > 0 && maxBackoff >= initialBackoff)
        self.batchSize = batchSize
        self.flushInterval = flushInterval
        self.maxQueued = maxQueued
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.onReport = onReport
    }
}

/// What happened to queued events.
public enum EventReport: Sendable {
    /// The server stored a batch: `accepted` new events, `duplicates` it had already (a retry).
    case delivered(accepted: Int, duplicates: Int)
    /// Events the server refused (4xx other than 429, or per-event rejections) or the queue had no
    /// room for: they are gone, never retried.
    case dropped([XizorEvent], reason: String)
    /// A send failed for a reason worth retrying; the next attempt is in `after` seconds.
    case retryScheduled(after: TimeInterval, reason: RetryReason)
    /// At launch, lines of the queue file that did not decode (the app was killed mid-write):
    /// their events are lost. Reported once, when the queue is opened.
    case unreadable(lines: Int)
    /// At launch, the queue file existed but could not be read (an I/O or permission error): it
    /// was moved to `movedTo` (its events are there, not delivered) and the queue starts empty.
    case unreadableFile(movedTo: String, reason: String)
    /// The queue file could not be written (a full disk, a directory the app may not write): the
    /// `queued` events waiting now are kept in memory and still delivered this launch, but an app
    /// killed before they are sent loses them. Reported each time a write fails.
    case notPersisted(queued: Int, reason: String)
}

public enum RetryReason: Sendable, Equatable {
    case network(String)
    case serverError(status: Int)
    case rateLimited(retryAfter: TimeInterval?)
}
