import Synchronization

/// Counters of what the services did, whichever door the request came through (REST, MCP, CLI),
/// for `/metrics`.
public final class ServiceActivity: Sendable {
    private let published = Atomic<Int>(0)
    private let eventsAccepted = Atomic<Int>(0)
    private let eventsDuplicate = Atomic<Int>(0)
    private let eventsRejected = Atomic<Int>(0)
    private let dataFailures = AtomicCounters(count: DataFailure.Kind.allCases.count)
    private let versionsNotParsed = Atomic<Int>(0)
    private let rulesCapped = Atomic<Int>(0)
    private let budgetsExhausted = Atomic<Int>(0)

    public init() {}

    /// A new immutable version was stored (publish or rollback; an idempotent replay is not counted).
    func recordPublish() { published.add(1, ordering: .relaxed) }

    func recordEvents(accepted: Int, duplicates: Int, rejected: Int) {
        eventsAccepted.add(accepted, ordering: .relaxed)
        eventsDuplicate.add(duplicates, ordering: .relaxed)
        eventsRejected.add(rejected, ordering: .relaxed)
    }

    func recordDataFailure(_ kind: DataFailure.Kind) { dataFailures.add(kind.rawValue) }
    package func dataFailureCount(_ kind: DataFailure.Kind) -> Int { dataFailures.load(kind.rawValue) }

    /// A `semver_*` rule met a request value that is not a version (a non-match: an app sending
    /// "1.2.3 (45)" would silently fall out of every version rule without this count).
    func recordVersionsNotParsed(_ count: Int) { versionsNotParsed.add(count, ordering: .relaxed) }
    public var ruleVersionsNotParsed: Int { versionsNotParsed.load(ordering: .relaxed) }

    /// A rule matched but its frequency cap was reached, so the next rule was tried.
    func recordRuleCapped() { rulesCapped.add(1, ordering: .relaxed) }
    public var rulesCappedCount: Int { rulesCapped.load(ordering: .relaxed) }

    /// An SDK request's rule evaluation ran out of steps (`EvaluationCost.budget`): a placement
    /// stored before budgets were checked at write time, served its own target instead.
    func recordEvaluationBudgetExhausted() { budgetsExhausted.add(1, ordering: .relaxed) }
    public var evaluationBudgetsExhausted: Int { budgetsExhausted.load(ordering: .relaxed) }

    public var publishes: Int { published.load(ordering: .relaxed) }
    public var eventsIngested: Int { eventsAccepted.load(ordering: .relaxed) }
    public var eventsDuplicates: Int { eventsDuplicate.load(ordering: .relaxed) }
    public var eventsRejectedCount: Int { eventsRejected.load(ordering: .relaxed) }
}
