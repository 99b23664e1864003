import PaywallFormat

/// What became of one rule in a dry run.
public struct RuleTrace: Sendable {
    public enum Outcome: String, Sendable {
        /// It matched and its target serves: the answer.
        case matched
        /// Its condition did not hold (`failure` says which part, and the value it saw).
        case notMatched = "not_matched"
        /// Outside its schedule (`activeFrom`, `activeUntil`).
        case inactive
        /// It matched, but the subscriber has seen it `presentations` times in the cap's interval.
        case capped
        /// It matched, but its target has no published version (nor a running experiment).
        case targetUnpublished = "target_unpublished"
        /// An earlier rule won.
        case notReached = "not_reached"
        /// The request's evaluation budget ran out here (rules stored before budgets were checked
        /// at write time): no further rule is tried, the placement's own target serves.
        case budgetExhausted = "budget_exhausted"
    }

    public let rule: Int
    public let outcome: Outcome
    public var failure: ConditionFailure? = nil
    public var presentations: Int? = nil
    public var frequencyCap: FrequencyCap? = nil
    /// The target is archived (it serves until retargeted).
    public var targetArchived = false

    /// Set on a capped rule shown to a key without `analytics`: how often the subscriber saw the
    /// paywall is theirs (the cap was reached is all that is said).
    public var presentationsHidden = false

    public var json: JSONValue {
        var o: [String: JSONValue] = ["rule": .number(rule), "outcome": .string(outcome.rawValue)]
        if let failure { o["failed"] = failure.json }
        if let frequencyCap { o["frequencyCap"] = frequencyCap.json }
        if let presentations { o["presentations"] = .number(presentations) }
        if presentationsHidden { o["hidden"] = .string(APIScope.analytics.rawValue) }
        if targetArchived { o["targetArchived"] = true }
        return .object(o)
    }
}
