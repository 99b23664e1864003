import Digest
import PaywallFormat

/// A rule's (or an audience's) condition: `{"all": [...]}`, `{"any": [...]}`, `{"not": C}`,
/// `{"key", "op", "value"}`, `{"audience": ID}` or `{"rollout": {"percent", "seed"}}`. Parsed and
/// checked by `ConditionParser` (ConditionParser.swift); the type of every operator is in
/// docs/targeting.md.
///
/// Comparison semantics: values compare only within one type (string, number, boolean); a key
/// missing from the request never matches a comparison (so `ne` is false too), only `exists`
/// (false) and `not` (which negates) see the absence.
public indirect enum Condition: Sendable, Equatable {
    case all([Condition])
    case any([Condition])
    case not(Condition)
    /// A key compared with an operand (a class: evaluating it retains one reference, not each part).
    case compare(Comparison)
    /// A named audience of the app: its condition, evaluated here.
    case audience(String)
    /// A stable share of subscribers: those whose bucket (of 10,000, as experiments bucket) under
    /// `seed` is below `basisPoints`. No subscriber id, no match.
    case rollout(basisPoints: Int, seed: String)

    public enum Operator: String, Sendable, CaseIterable {
        case eq, ne, `in`, notIn = "not_in", exists, gt, gte, lt, lte
        case startsWith = "starts_with", between
        case semverEq = "semver_eq", semverGt = "semver_gt", semverGte = "semver_gte", semverLt = "semver_lt",
            semverLte = "semver_lte"

        var isSemver: Bool { [.semverEq, .semverGt, .semverGte, .semverLt, .semverLte].contains(self) }
    }

    /// `keyText` is the key as written (`appVersion` and `context.appVersion` name the same value
    /// but are answered as written).
    public final class Comparison: Sendable, Equatable {
        public let key: AttributeKey
        public let keyText: String
        public let op: Operator
        public let operand: Operand

        init(key: AttributeKey, keyText: String, op: Operator, operand: Operand) {
            self.key = key
            self.keyText = keyText
            self.op = op
            self.operand = operand
        }

        /// The one leaf of both evaluators: the request's value against the operand (a value that
        /// is not a version, met by a `semver_*` operator, is counted).
        func test(_ facts: inout RequestFacts) throws -> (outcome: Outcome, actual: ContextValue?) {
            let actual = try facts.value(of: key)
            let outcome = Condition.compare(actual, op, operand, &facts)
            if outcome == .notAVersion { facts.versionsNotParsed += 1 }
            return (outcome, actual)
        }

        public static func == (a: Comparison, b: Comparison) -> Bool {
            a.key == b.key && a.keyText == b.keyText && a.op == b.op && a.operand == b.operand
        }
    }

    /// What an operator compares against, typed once at parse time.
    public enum Operand: Sendable, Equatable {
        case none
        case value(ContextValue)
        case list([ContextValue])
        /// Inclusive bounds of one type (numbers, or strings by code points).
        case range(ContextValue, ContextValue)
        case version(SemanticVersion, text: String)
        case prefix(String)
    }

    /// Whether the condition holds for the request: the SDK path's evaluator, which builds nothing
    /// but the answer. `explain` (the dry run) walks the same way and records what failed; the two
    /// share every leaf (`test`) and are held equal by a test and the fuzzer.
    /// Every node visited spends the request's budget (`EvaluationCost`), as `check` does.
    public func matches(_ facts: inout RequestFacts) throws -> Bool {
        switch self {
        case .all(let conditions):
            try facts.spend(1)
            for condition in conditions where try !condition.matches(&facts) { return false }
            return true
        case .any(let conditions):
            try facts.spend(1)
            for condition in conditions where try condition.matches(&facts) { return true }
            return false
        case .not(let inner):
            try facts.spend(1)
            return try !inner.matches(&facts)
        case .audience(let id):
            try facts.spend(1)
            if facts.isUnreadableAudience(id) { throw UnreadableAudience(id: id) }
            return try facts.audience(id)?.matches(&facts) ?? false
        case .rollout(let basisPoints, let seed):
            try facts.spend(1)
            facts.consulted.subscriber = true
            guard let subscriberID = facts.subscriberID, !subscriberID.isEmpty else { return false }
            return Condition.rolloutBucket(seed: seed, subscriberID: subscriberID) < basisPoints
        case .compare(let comparison):
            try facts.spend(comparison.steps)
            return try comparison.test(&facts).outcome == .matched
        }
    }

    /// Nil when the condition holds; else the first part that failed, with the value it saw.
    public func explain(_ facts: inout RequestFacts, path: String) throws -> ConditionFailure? {
        var failure: ConditionFailure?
        return try check(&facts, path: path, failure: &failure) ? nil : failure
    }

    /// For a context alone (tests, the fuzzer): no device, subscriber or audience. It cannot throw
    /// — nothing is read from the database, no audience is unreadable, and a condition within
    /// `EvaluationCost.budget` (all that can be written) cannot exhaust it — so a throw is a bug here.
    public func matches(_ context: PresentationContext) -> Bool {
        var facts = RequestFacts(context: context)
        do { return try matches(&facts) } catch {
            preconditionFailure("a condition over a context alone threw: \(error)")
        }
    }

    /// The dry run's evaluator: the same answers as `matches`, and `failure` says what failed first.
    func check(_ facts: inout RequestFacts, path: String, failure: inout ConditionFailure?) throws -> Bool {
        if case .compare(let comparison) = self { try facts.spend(comparison.steps) } else { try facts.spend(1) }
        switch self {
        case .all(let conditions):
            for (index, condition) in conditions.enumerated()
            where try !condition.check(&facts, path: "\(path).all[\(index)]", failure: &failure) {
                return false
            }
            return true
        case .any(let conditions):
            var alternatives: [ConditionFailure] = []
            for (index, condition) in conditions.enumerated() {
                var inner: ConditionFailure?
                if try condition.check(&facts, path: "\(path).any[\(index)]", failure: &inner) { return true }
                if let inner { alternatives.append(inner) }
            }
            failure = ConditionFailure(path: "\(path).any", reason: .noneMatched, alternatives: alternatives)
            return false
        case .not(let inner):
            var ignored: ConditionFailure?
            guard try inner.check(&facts, path: "\(path).not", failure: &ignored) else { return true }
            failure = ConditionFailure(path: "\(path).not", reason: .negatedConditionMatched)
            return false
        case .audience(let id):
            if facts.isUnreadableAudience(id) { throw UnreadableAudience(id: id) }
            guard let condition = facts.audience(id) else {
                failure = ConditionFailure(path: path, reason: .unknownAudience, audience: id)
                return false
            }
            var inner: ConditionFailure?
            guard try condition.check(&facts, path: "$", failure: &inner) else {
                failure = ConditionFailure(
                    path: path, reason: .audienceNotMatched, audience: id, alternatives: inner.map { [$0] } ?? [])
                return false
            }
            return true
        case .rollout(let basisPoints, let seed):
            facts.consulted.subscriber = true
            guard let subscriberID = facts.subscriberID, !subscriberID.isEmpty else {
                failure = ConditionFailure(path: path, reason: .noSubscriber)
                return false
            }
            let bucket = Condition.rolloutBucket(seed: seed, subscriberID: subscriberID)
            guard bucket < basisPoints else {
                failure = ConditionFailure(path: path, reason: .outsideRollout, saw: .number(Double(bucket)))
                return false
            }
            return true
        case .compare(let comparison):
            let (outcome, actual) = try comparison.test(&facts)
            guard outcome != .matched else { return true }
            failure = ConditionFailure(
                path: path, reason: actual == nil ? .missing : (outcome == .notAVersion ? .notAVersion : .compared),
                key: comparison.keyText, op: comparison.op, operand: comparison.operand, saw: actual)
            return false
        }
    }

    enum Outcome { case matched, failed, notAVersion }

    /// Switches on the operand, then the operator (a tuple of the two would copy the operand).
    static func compare(_ actual: ContextValue?, _ op: Operator, _ operand: Operand, _ facts: inout RequestFacts)
        -> Outcome
    {
        guard let actual else { return .failed }
        func yes(_ b: Bool) -> Outcome { b ? .matched : .failed }
        // The parser pairs every operator with its operand; any other pairing is not a match.
        switch operand {
        case .none:
            return yes(op == .exists)
        case .value(let expected):
            switch op {
            case .eq: return yes(actual == expected)
            case .ne: return yes(sameType(actual, expected) && actual != expected)
            case .gt, .gte, .lt, .lte:
                guard let order = order(actual, expected) else { return .failed }
                switch op {
                case .gt: return yes(order > 0)
                case .gte: return yes(order >= 0)
                case .lt: return yes(order < 0)
                default: return yes(order <= 0)
                }
            default: return .failed
            }
        case .list(let list):
            switch op {
            case .in: return yes(list.contains(actual))
            case .notIn: return yes(!list.isEmpty && list.allSatisfy { sameType(actual, $0) } && !list.contains(actual))
            default: return .failed
            }
        case .prefix(let prefix):
            guard op == .startsWith, case .string(let s) = actual else { return .failed }
            return yes(s.hasPrefix(prefix))
        case .range(let low, let high):
            guard op == .between, let a = order(actual, low), let b = order(actual, high) else { return .failed }
            return yes(a >= 0 && b <= 0)
        case .version(let expected, _):
            guard op.isSemver else { return .failed }
            guard case .string(let text) = actual, let version = facts.version(text) else { return .notAVersion }
            switch op {
            case .semverEq: return yes(version == expected)
            case .semverGt: return yes(version > expected)
            case .semverGte: return yes(version >= expected)
            case .semverLt: return yes(version < expected)
            default: return yes(version <= expected)
            }
        }
    }

    static func sameType(_ a: ContextValue, _ b: ContextValue) -> Bool {
        switch (a, b) {
        case (.string, .string), (.number, .number), (.bool, .bool): true
        default: false
        }
    }

    static func order(_ a: ContextValue, _ b: ContextValue) -> Int? {
        switch (a, b) {
        case (.number(let x), .number(let y)): x < y ? -1 : (x > y ? 1 : 0)
        case (.string(let x), .string(let y)):
            x.unicodeScalars.lexicographicallyPrecedes(y.unicodeScalars) ? -1 : (x == y ? 0 : 1)
        default: nil
        }
    }

    /// The bucket (0..<10,000) of a subscriber in a rollout: SHA-256 of "rollout:SEED:SUBSCRIBER",
    /// as `Allocation.bucket` does for experiments, so a share is stable across restarts and servers.
    public static func rolloutBucket(seed: String, subscriberID: String) -> Int {
        Allocation.bucket(experimentID: "rollout:\(seed)", subscriberID: subscriberID)
    }

    /// The audiences the condition names, directly.
    public var audienceIDs: Set<String> {
        switch self {
        case .all(let c), .any(let c): c.reduce(into: Set()) { $0.formUnion($1.audienceIDs) }
        case .not(let c): c.audienceIDs
        case .audience(let id): [id]
        case .compare, .rollout: []
        }
    }

    /// Whether evaluating it reads a request attribute (`device.*`), itself or through one of `audiences`.
    public func readsDevice(audiences: [String: Condition]) -> Bool {
        reads(audiences: audiences) { if case .device = $0 { true } else { false } }
    }

    /// Whether evaluating it reads a stored subscriber attribute (`subscriber.*`), itself or through
    /// one of `audiences`.
    public func readsSubscriber(audiences: [String: Condition]) -> Bool {
        reads(audiences: audiences) { if case .subscriber = $0 { true } else { false } }
    }

    /// Whether a comparison it evaluates, itself or in an audience it names, has a key `kind` accepts.
    private func reads(audiences: [String: Condition], _ kind: (AttributeKey) -> Bool) -> Bool {
        switch self {
        case .all(let c), .any(let c): c.contains { $0.reads(audiences: audiences, kind) }
        case .not(let c): c.reads(audiences: audiences, kind)
        case .compare(let comparison): kind(comparison.key)
        case .audience(let id): audiences[id]?.reads(audiences: [:], kind) ?? false
        case .rollout: false
        }
    }

    /// The condition as stored and answered.
    public var json: JSONValue {
        switch self {
        case .all(let c): return ["all": .array(c.map(\.json))]
        case .any(let c): return ["any": .array(c.map(\.json))]
        case .not(let c): return ["not": c.json]
        case .audience(let id): return ["audience": .string(id)]
        case .rollout(let basisPoints, let seed):
            return ["rollout": ["percent": Condition.percentJSON(basisPoints), "seed": .string(seed)]]
        case .compare(let comparison):
            var object: [String: JSONValue] = [
                "key": .string(comparison.keyText), "op": .string(comparison.op.rawValue),
            ]
            if let value = comparison.operand.json { object["value"] = value }
            return .object(object)
        }
    }

    static func percentJSON(_ basisPoints: Int) -> JSONValue {
        basisPoints % 100 == 0 ? .number(basisPoints / 100) : .number(Double(basisPoints) / 100)
    }
}

extension Condition.Operand {
    var json: JSONValue? {
        switch self {
        case .none: nil
        case .value(let v): v.json
        case .list(let list): .array(list.map(\.json))
        case .range(let low, let high): .array([low.json, high.json])
        case .version(_, let text): .string(text)
        case .prefix(let p): .string(p)
        }
    }
}
