import PaywallFormat
import XizorDomain

/// `{"condition": C, "context": {...}}` (or a bare condition with an empty context) through the
/// rule parser and evaluator. What parses must survive its own JSON (what is stored and answered),
/// and evaluation must obey logic: `not` negates, a one-element `all`/`any` is the element, the
/// dry run's `explain` agrees with `matches`, and the answer is the same for the round-tripped condition.
enum ConditionFuzz {
    static func run(_ input: UnsafeRawBufferPointer) throws(FuzzFinding) {
        guard let json = FuzzJSON.parse(input) else { return }
        let conditionJSON = json["condition"] ?? json
        var context: PresentationContext = [:]
        for (key, value) in json["context"]?.objectValue ?? [:] {
            if let typed = ContextValue(json: value) { context[key] = typed }
        }
        var issues: [ValidationIssue] = []
        guard let condition = Condition.parse(conditionJSON, path: "$", issues: &issues) else {
            guard !issues.isEmpty else { throw FuzzFinding(.condition, "refused without saying why") }
            return
        }
        guard issues.isEmpty else { throw FuzzFinding(.condition, "parsed despite issues \(issues)") }
        var reparsedIssues: [ValidationIssue] = []
        guard let reparsed = Condition.parse(condition.json, path: "$", issues: &reparsedIssues), reparsed == condition
        else {
            throw FuzzFinding(
                .condition, "its own JSON does not parse back: \(condition.json.canonicalString) \(reparsedIssues)")
        }
        // Past the evaluation budget a condition is refused when written (and stops a request's
        // evaluation when served), so evaluating it alone is not a property to check; +1: the
        // one-element `all`/`any`/`not` below wraps it.
        guard EvaluationCost.of(condition, audiences: [:]) + 1 <= EvaluationCost.budget else { return }
        let matches = condition.matches(context)
        // The dry run's evaluator answers as the SDK path's does.
        // Over a context alone nothing is read from a database, so neither may throw.
        var facts = RequestFacts(context: context, subscriberID: json["subscriberId"]?.stringValue)
        var again = facts
        let explained: ConditionFailure?
        let matched: Bool
        do {
            explained = try condition.explain(&facts, path: "$")
            matched = try condition.matches(&again)
        } catch {
            throw FuzzFinding(.condition, "evaluation threw over a context alone: \(error)")
        }
        guard matched == (explained == nil) else {
            throw FuzzFinding(.condition, "matches and explain disagree on \(condition.json.canonicalString)")
        }
        guard Condition.not(condition).matches(context) == !matches else {
            throw FuzzFinding(.condition, "not does not negate")
        }
        guard Condition.all([condition]).matches(context) == matches,
            Condition.any([condition]).matches(context) == matches
        else {
            throw FuzzFinding(.condition, "a one-element all/any differs from its element")
        }
    }
}
