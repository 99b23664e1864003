import Foundation
import Synchronization

/// Sends the outbox (docs/integrations.md, "Delivery"): `workers` threads, each leasing the due
/// head of some endpoint's queue, POSTing it signed, and recording the outcome. Leases make it
/// safe for several processes on one database to send together; a sender killed mid-request
/// leaves a lease that expires, and the delivery is sent again (at least once, same event id).
/// Senders are shared out per app (the app with the fewest deliveries in flight first, none past
/// its cap), so one app's endpoints that hang cannot take every sender from the others.
public final class WebhookDispatcher: Sendable {
    public struct Options: Sendable {
        public var workers = 4
        public var timeoutMs = 10_000
        public var retryBaseMs = 10_000
        public var retryForMs: Int64 = 86_400_000
        /// The longest a sender sleeps before looking at the outbox (other processes' writes wake
        /// no one here; a due retry wakes its sender on time).
        public var pollMs = 1_000
        public var allowPrivateTargets = false
        public var caFile: String?
        /// `webhooks.maxInFlightPerApp`: the most deliveries of one app being sent at once.
        public var maxInFlightPerApp = 2
        /// `webhooks.disableAfterMs`: an endpoint failing this long is disabled.
        public var disableAfterMs: Int64 = 259_200_000
        public init() {}

        /// The cap as applied: below `workers`, so another app always finds a free sender in this
        /// process however long one app's endpoints take to answer (one worker: one at a time anyway).
        var effectiveMaxInFlightPerApp: Int { workers > 1 ? min(maxInFlightPerApp, workers - 1) : 1 }
    }

    private let store: any DataStore
    private let clock: Clock
    private let signal: WakeSignal
    private let options: Options
    private let schedule: RetrySchedule
    private let log: @Sendable (String) -> Void
    private let running = Atomic<Bool>(false)
    private let stopped = DispatchGroup()
    /// Outcomes, for `/metrics`.
    private let counters: WebhookCounters

    public init(
        store: any DataStore, clock: Clock, signal: WakeSignal, counters: WebhookCounters, options: Options,
        log: @escaping @Sendable (String) -> Void
    ) {
        precondition(
            options.workers >= 1 && options.timeoutMs >= 1 && options.pollMs >= 1 && options.maxInFlightPerApp >= 1
                && options.disableAfterMs >= 1, "webhook sending needs workers and positive times")
        self.store = store
        self.clock = clock
        self.signal = signal
        self.counters = counters
        self.options = options
        schedule = RetrySchedule(baseMs: Int64(options.retryBaseMs), retryForMs: options.retryForMs)
        self.log = log
    }

    /// Starts the sender threads; fails when libcurl cannot be set up.
    public func start() throws {
        guard WebhookSender.globalInit else { throw WebhookDispatcherError.curlUnavailable }
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else {
            preconditionFailure("the webhook dispatcher is already running")
        }
        for index in 0..<options.workers {
            stopped.enter()
            let thread = Thread { [self] in
                defer { stopped.leave() }
                guard
                    let sender = WebhookSender(
                        options: .init(
                            timeoutMs: options.timeoutMs, allowPrivateTargets: options.allowPrivateTargets,
                            caFile: options.caFile))
                else {
                    log("webhook sender \(index) could not create a libcurl handle; it does not run")
                    return
                }
                run(sender)
            }
            thread.name = "xizor-webhooks-\(index)"
            thread.start()
        }
    }

    /// Stops the senders after their current attempt (each at most `timeoutMs`) and waits for them.
    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        signal.wake()
        _ = stopped.wait(timeout: .now() + .milliseconds(options.timeoutMs + 2_000))
    }

    private func run(_ sender: WebhookSender) {
        while running.load(ordering: .relaxed) {
            let seen = signal.current
            var waitMs = options.pollMs
            do {
                let now = clock.now()
                if let due = try store.read({ tx in try tx.webhooks.nextDue() }) {
                    if due <= now {
                        if let claimed = try store.write({ tx in
                            try tx.webhooks.claim(
                                now: now, leaseUntil: now + Int64(options.timeoutMs) + 5_000,
                                maxInFlightPerApp: options.effectiveMaxInFlightPerApp)
                        }) {
                            try send(claimed, with: sender)
                            signal.wake()  // an app's count in flight fell: a sender waiting on its cap may go on
                            continue  // look again at once: more may be due
                        }
                        // Due, but every due head belongs to an app at its cap (or another sender
                        // took it): wait for an attempt to end rather than spin.
                    } else {
                        waitMs = Int(min(Int64(options.pollMs), due - now))
                    }
                }
            } catch {
                counters.errors.add(1, ordering: .relaxed)
                log("webhook dispatch failed: \(error)")
                waitMs = max(options.pollMs, 1_000)
            }
            signal.wait(after: seen, upToMs: waitMs)
        }
    }

    private func send(_ claimed: ClaimedDelivery, with sender: WebhookSender) throws {
        let body = Array(claimed.payload.utf8)
        let timestamp = clock.now() / 1000
        let answer = sender.post(
            url: claimed.url, body: body,
            headers: [
                "Content-Type: application/json",
                "User-Agent: Xizor-Webhooks/1",
                "Xizor-Event-Id: \(claimed.eventID)",
                "Xizor-Event-Type: \(claimed.eventType)",
                "Xizor-Delivery-Id: \(claimed.id)",
                "Xizor-Signature: \(WebhookSignature.header(secret: claimed.secret, timestamp: timestamp, body: body))",
            ])
        let now = clock.now()
        let outcome = schedule.outcome(answer, attempts: claimed.attempts, createdAt: claimed.createdAt, now: now)
        let disabled = try store.write { tx in
            try WebhookAttempts.record(
                claimed, outcome: outcome, now: now, disableAfterMs: options.disableAfterMs, in: tx)
        }
        counters.count(outcome.state)
        if disabled {
            counters.disabled.add(1, ordering: .relaxed)
            log(
                "webhook endpoint \(claimed.endpointID) of app \(claimed.appID) failed for \(options.disableAfterMs) ms and was disabled"
            )
        }
    }
}

public enum WebhookDispatcherError: Error, CustomStringConvertible {
    case curlUnavailable
    public var description: String { "libcurl could not be initialised; webhooks cannot be sent" }
}

/// What the senders did, for `/metrics`.
public final class WebhookCounters: Sendable {
    public let delivered = Atomic<Int>(0)
    public let retried = Atomic<Int>(0)
    public let failed = Atomic<Int>(0)
    /// Endpoints this process disabled because they kept failing.
    public let disabled = Atomic<Int>(0)
    /// Outbox reads or writes that failed (the database was away).
    public let errors = Atomic<Int>(0)

    func count(_ state: WebhookDeliveryState) {
        switch state {
        case .delivered: delivered.add(1, ordering: .relaxed)
        case .pending: retried.add(1, ordering: .relaxed)
        case .failed: failed.add(1, ordering: .relaxed)
        }
    }
}
