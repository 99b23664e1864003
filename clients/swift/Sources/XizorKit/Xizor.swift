import Foundation

#if canImport(UIKit)
    import UIKit
#endif

/// The entry point: configure once, then ask for placements' paywalls, track events and read
/// timer starts. Safe to share across threads and tasks.
public final class Xizor: Sendable {
    public let configuration: XizorConfiguration
    /// The persistent event queue (also reachable through `track` and `flush`).
    public let events: EventQueue
    private let loader: PaywallLoader
    private let timers: Timers
    private let observer: BackgroundObserver
    private let transport: Transport

    /// Reads the bundled fallback and the queue left by a previous launch; does no network I/O,
    /// so it never delays start-up. The first interval flush sends what was left.
    public init(configuration: XizorConfiguration) throws {
        precondition(configuration.schemaVersion >= 1, "schema versions start at 1")
        self.configuration = configuration
        try FileManager.default.createDirectory(at: configuration.cacheDirectory, withIntermediateDirectories: true)
        let transport = Transport(configuration: configuration)
        self.transport = transport
        let fallback = try configuration.fallbackBundle.map {
            try FallbackBundle(contentsOf: $0, schemaVersion: configuration.schemaVersion)
        }
        loader = PaywallLoader(
            transport: transport, cache: PaywallCache(directory: configuration.cacheDirectory),
            fallback: fallback, cacheTimeout: configuration.cacheTimeout,
            verifier: AnswerVerifier(configuration: configuration))
        let events = EventQueue(
            transport: transport, directory: configuration.cacheDirectory, settings: configuration.events)
        self.events = events
        timers = Timers(transport: transport, directory: configuration.cacheDirectory)
        observer = BackgroundObserver(events: events)
        Task { await events.start() }
    }

    /// A URLSession lives until it is invalidated (its connections and, on Linux, its libcurl
    /// handle with them); requests still running finish first.
    deinit {
        let events = self.events
        let session = transport.session
        Task {
            await events.stop()
            session.finishTasksAndInvalidate()
        }
    }

    /// The paywall to present for `placement`: from the network when it answers within
    /// `cacheTimeout`, else from the disk cache, else from the bundled fallback (and the network
    /// request goes on to refresh the cache). `.holdout` means show nothing.
    ///
    /// Throws `XizorError.rejected` when the server definitively says no (unknown placement,
    /// nothing published, bad key) and `XizorError.unavailable` when there is nothing to show.
    public func paywall(
        for placement: String, locale: String? = nil, colorScheme: ColorScheme? = nil,
        subscriberId: String? = nil, context: [String: ContextValue] = [:],
        format: PaywallFormat = .document
    ) async throws -> PaywallAnswer {
        try await loader.answer(
            PaywallRequest(
                placement: placement, format: format, locale: locale, colorScheme: colorScheme,
                subscriberId: subscriberId, context: context,
                schemaVersion: configuration.schemaVersion))
    }

    /// Fetches placements ahead of their presentation, so the first one is answered from the cache
    /// at worst. Failures are ignored: presenting will try again.
    public func preload(
        placements: [String], locale: String? = nil, colorScheme: ColorScheme? = nil,
        subscriberId: String? = nil, context: [String: ContextValue] = [:],
        format: PaywallFormat = .document
    ) async {
        await withTaskGroup(of: Void.self) { group in
            for placement in placements {
                group.addTask {
                    _ = try? await self.paywall(
                        for: placement, locale: locale, colorScheme: colorScheme,
                        subscriberId: subscriberId, context: context, format: format)
                }
            }
        }
    }

    /// Queues an event (on disk when this returns); build it with the `Paywall` that was shown so
    /// it carries the experiment attribution.
    public func track(_ event: XizorEvent) async {
        await events.enqueue([event])
    }

    public func track(
        _ name: String, paywall: Paywall? = nil, subscriberId: String? = nil,
        properties: [String: JSONValue]? = nil
    ) async {
        await track(XizorEvent(name: name, paywall: paywall, subscriberId: subscriberId, properties: properties))
    }

    /// Sends queued events now (returns early when a retry is scheduled).
    public func flush() async {
        await events.flush()
    }

    /// Replaces what the server stores of a subscriber (rules read it as `subscriber.KEY`, from the
    /// next paywall request on): strings, numbers and booleans, at most 50. Throws
    /// `XizorError.rejected` with the server's problem when it refuses them (a key or value out of
    /// bounds), `.unavailable` when it cannot be reached.
    public func setAttributes(_ attributes: [String: JSONValue], subscriberId: String) async throws {
        let body = try JSONValue.object(["attributes": .object(attributes)]).jsonData()
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/")
        guard let id = subscriberId.addingPercentEncoding(withAllowedCharacters: allowed), !id.isEmpty,
            var components = URLComponents(url: transport.url("v1/sdk/subscribers"), resolvingAgainstBaseURL: false)
        else {
            throw XizorError.rejected(
                status: 0, code: "invalid_subscriber_id", detail: "a subscriber id is 1 to 200 bytes")
        }
        components.percentEncodedPath += "/\(id)/attributes"
        guard let url = components.url else {
            throw XizorError.rejected(
                status: 0, code: "invalid_subscriber_id", detail: "'\(subscriberId)' does not make a URL")
        }
        let response: HTTPResponse
        do {
            response = try await transport.send("PUT", url, body: body)
        } catch {
            throw XizorError.unavailable(placement: "", underlying: "subscriber attributes: \(error)")
        }
        guard response.status == 200 else {
            let problem = response.problem
            if (400..<500).contains(response.status) && response.status != 429 {
                throw XizorError.rejected(status: response.status, code: problem.code, detail: problem.detail)
            }
            throw XizorError.unavailable(
                placement: "", underlying: "subscriber attributes: the server answered \(response.status)")
        }
    }

    /// The persisted start of a duration timer, in milliseconds since 1970 (cached after the first answer).
    public func timerStart(subscriberId: String, paywallId: String, nodeId: String) async throws -> Int64 {
        try await timers.start(subscriberId: subscriberId, paywallId: paywallId, nodeId: nodeId)
    }
}

/// Flushes the queue when the app goes to the background (iOS and tvOS), inside a background
/// task so the send can finish; elsewhere the interval and `flush()` do. (`@unchecked`: the
/// observer token is an immutable NSObject, only handed back to NotificationCenter in `deinit`.)
private final class BackgroundObserver: @unchecked Sendable {
    #if canImport(UIKit) && !os(watchOS)
        private let token: NSObjectProtocol

        init(events: EventQueue) {
            token = NotificationCenter.default.addObserver(
                forName: UIApplication.didEnterBackgroundNotification, object: nil,
                queue: nil
            ) { _ in
                Task { @MainActor in
                    let identifier = UIApplication.shared.beginBackgroundTask(withName: "XizorKit events")
                    await events.flush()
                    UIApplication.shared.endBackgroundTask(identifier)
                }
            }
        }

        deinit { NotificationCenter.default.removeObserver(token) }
    #else
        init(events: EventQueue) {}
    #endif
}
