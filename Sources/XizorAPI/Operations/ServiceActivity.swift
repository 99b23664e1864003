import Synchronization


/// Counters of what the services did, whichever door the request came through (REST, MCP, CLI),
/// for `/metrics`.
public final class ServiceActivity: Sendable {
    private let published = Atomic<Int>(0)
    private let eventsAccepted = Atomic<Int>(0)
    private let eventsDuplicate = Atomic<Int>(0)
    private let eventsRejected = Atomic<Int>(0)
    private let dataFailures = AtomicCounters(count: DataFailure.Kind.allCases.count)

    public init() {}

    /// A new immutable version was stored (publish or rollback; an idempotent replay is not counted).
    func recordPublish() { published.add(1, ordering: .relaxed) }

    func recordEvents(accepted: Int, duplicates: Int, rejected: Int) {
        eventsAccepted.add(accepted, ordering: .relaxed)
        eventsDuplicate.add(duplicates, ordering: .relaxed)
        eventsRejected.add(rejected, ordering: .relaxed)
    }

    func recordDataFailure(_ kind: DataFailure.Kind) { dataFailures.add(kind.rawValue) }
    func dataFailureCount(_ kind: DataFailure.Kind) -> Int { dataFailures.load(kind.rawValue) }

    public var publishes: Int { published.load(ordering: .relaxed) }
    public var eventsIngested: Int { eventsAccepted.load(ordering: .relaxed) }
    public var eventsDuplicates: Int { eventsDuplicate.load(ordering: .relaxed) }
    public var eventsRejectedCount: Int { eventsRejected.load(ordering: .relaxed) }
}
