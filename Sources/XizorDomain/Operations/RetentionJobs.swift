import Foundation
import Synchronization

/// Deletes what is kept only for a while — audit entries past `audit.retentionDays`, finished
/// webhook deliveries past `webhooks.logRetentionDays`, raw events past `events.retentionDays` (or
/// their app's own, in chunks) — once at start and every `intervalMs`, on one thread. A failure is logged and tried again next time; nothing on a request path waits for it.
public final class RetentionJobs: Sendable {
    private let services: XizorServices
    private let intervalMs: Int
    private let log: @Sendable (String) -> Void
    private let running = Atomic<Bool>(false)
    private let wake = WakeSignal()
    private let stopped = DispatchSemaphore(value: 0)

    public init(services: XizorServices, intervalMs: Int = 3_600_000, log: @escaping @Sendable (String) -> Void) {
        precondition(intervalMs > 0, "retention runs at a positive interval")
        self.services = services
        self.intervalMs = intervalMs
        self.log = log
    }

    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else {
            preconditionFailure("retention jobs already run")
        }
        let thread = Thread { [self] in
            while running.load(ordering: .relaxed) {
                let seen = wake.current
                runOnce()
                wake.wait(after: seen, upToMs: intervalMs)
            }
            stopped.signal()
        }
        thread.name = "xizor-retention"
        thread.start()
    }

    /// One pass: what each job deleted, logged when anything was.
    public func runOnce() {
        do {
            let audit = try services.audit.prune()
            let deliveries = try services.webhooks.pruneLog()
            let events = try services.events.pruneExpired()
            if audit + deliveries + events.deleted > 0 {
                log(
                    "retention deleted \(audit) audit entries, \(deliveries) webhook deliveries and \(events.deleted) events (in \(events.transactions) transactions)"
                )
            }
            if events.partitionsCreated > 0 || !events.partitionsDropped.isEmpty {
                log(
                    "retention created \(events.partitionsCreated) monthly event partitions and dropped \(events.partitionsDropped.isEmpty ? "none" : events.partitionsDropped.joined(separator: ", "))"
                )
            }
        } catch {
            log("retention failed: \(error)")
        }
    }

    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        wake.wake()
        _ = stopped.wait(timeout: .now() + 10)
    }
}
