import PaywallFormat

/// The price of resolving a placement, fixed when its rules or audiences are written, so that what
/// a tenant configures can never make an SDK request expensive for the server (docs/targeting.md,
/// "Evaluation budget").
///
/// The unit is one **step**: a condition node visited (`all`, `any`, `not`, a comparison, an
/// audience reference, a rollout), each value of an `in`/`not_in` list (compared one by one), and
/// each event a frequency cap may read (a cap reads at most `count` events). A rule's price
/// expands the audiences it names, every time it names them, since evaluation does. A placement's
/// price is the sum of its rules': what one SDK request may cost in the worst case.
public enum EvaluationCost {
    /// The most one placement's rules may cost, and the most one request's evaluation spends. The
    /// largest setup in the docs and tests (100 rules on two keys each, with a cap of 3) costs
    /// about 600 steps; 10,000 steps run in well under a millisecond on this machine.
    public static let budget = 10_000

    /// The price of a condition, with the price of each audience it may name (an audience that is
    /// missing costs its reference only: the rules' writer refuses it anyway).
    public static func of(_ condition: Condition, audiences: [String: Int]) -> Int {
        switch condition {
        case .all(let items), .any(let items): return items.reduce(1) { $0 + of($1, audiences: audiences) }
        case .not(let inner): return 1 + of(inner, audiences: audiences)
        case .audience(let id): return 1 + (audiences[id] ?? 0)
        case .rollout: return 1
        case .compare(let comparison): return comparison.steps
        }
    }

    /// A rule's price: its condition, plus the events its cap may read.
    public static func rule(_ condition: Condition?, cap: FrequencyCap?, audiences: [String: Int]) -> Int {
        (condition.map { of($0, audiences: audiences) } ?? 0) + (cap?.count ?? 0)
    }

    /// The refusal for a price over the budget, naming the figure (`what`: "These rules", "Placement 'x'").
    static func refusal(path: String, what: String, cost: Int) -> ValidationIssue {
        ValidationIssue(
            path: path,
            message: "\(what) would cost \(cost) steps to evaluate per request (conditions with audiences expanded, "
                + "list values, and the events frequency caps read); the budget is \(budget) (docs/targeting.md).",
            code: "evaluation_budget_exceeded")
    }

    /// Every placement's price, from the stored rules and audiences, with `replacing` an audience's
    /// price as it is about to be written (so an audience change is checked against every rule that
    /// names it before it is stored). Rules that no longer read cost nothing here: serving refuses them.
    static func placements(_ tx: any StoreTransaction, appID: String, replacing: (id: String, cost: Int)? = nil) throws
        -> [String: Int]
    {
        var audiences = try audienceCosts(tx, appID: appID)
        if let replacing { audiences[replacing.id] = replacing.cost }
        var costs: [String: Int] = [:]
        for placement in try tx.placements.placements(appID: appID) {
            costs[placement.key] = placement.rules.reduce(0) { total, stored in
                total
                    + rule(
                        storedCondition(stored.condition, options: Condition.ParseOptions()), cap: stored.frequencyCap,
                        audiences: audiences)
            }
        }
        return costs
    }

    /// Each stored audience's price (an unreadable one costs nothing: serving refuses it).
    static func audienceCosts(_ tx: any StoreTransaction, appID: String) throws -> [String: Int] {
        var costs: [String: Int] = [:]
        for audience in try tx.audiences.audiences(appID: appID) {
            costs[audience.id] =
                storedCondition(audience.condition, options: Condition.ParseOptions(allowsAudiences: false))
                .map { of($0, audiences: [:]) } ?? 0
        }
        return costs
    }

    /// A stored condition, or nil when it no longer reads. Not counted here: loading the serving
    /// snapshot counts every unreadable rule and audience once (`DataFailure.Kind.storedRule`) and
    /// answers 500 for a request that reaches one, so pricing it at nothing refuses no write it
    /// should have refused.
    private static func storedCondition(_ text: String, options: Condition.ParseOptions) -> Condition? {
        let json: JSONValue
        do { json = try JSONValue(parsing: text) } catch { return nil }
        var issues: [ValidationIssue] = []
        return Condition.parse(json, path: "$", issues: &issues, options: options)
    }
}

/// One request's evaluation spent its budget (`EvaluationCost.budget`): the resolver stops trying
/// rules and serves the placement's own target. Only a configuration stored before the budget was
/// checked at write time can get here.
struct EvaluationBudgetExhausted: Error {}

extension Condition.Comparison {
    /// A comparison's steps: one, or one per value of the list it searches.
    var steps: Int {
        if case .list(let values) = operand { return max(1, values.count) }
        return 1
    }
}
