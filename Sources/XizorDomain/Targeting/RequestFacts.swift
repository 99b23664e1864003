import PaywallFormat

/// Everything a condition can see of one request: the app's context, the subscriber, the request
/// attributes (read from the request's headers only for a placement whose rules read them) and the
/// subscriber's stored attributes (read from the database only when a rule asks, once per request).
public struct RequestFacts {
    public let context: PresentationContext
    public let subscriberID: String?
    /// What only a rule reads, apart: most placements have no rules, and their requests' facts are
    /// then made and destroyed as one empty optional instead of a dozen empty values, each a
    /// release (about 250 instructions of every plain SDK request).
    private var ruleInputs: RuleInputs?
    /// Semantic-version comparisons that met a value that is not a version (a non-match, counted).
    var versionsNotParsed = 0
    /// Steps this request may still spend (`EvaluationCost`): a configuration stored before the
    /// budget was checked at write time still cannot make one request expensive.
    private(set) var stepsLeft = EvaluationCost.budget
    /// What the resolution read of the request beyond its URL: whether a shared cache may keep the
    /// answer, and which request headers it must vary on (docs/scaling.md, "Edge delivery").
    public internal(set) var consulted = Consulted()

    /// What a resolution read that is not in the request's URL.
    public struct Consulted: Sendable, Equatable {
        /// Something of the subscriber decided the answer: a stored attribute, a rollout, a
        /// frequency cap or an experiment's assignment (read or found missing alike: a request
        /// without a subscriber answered so must not be kept for one with a subscriber).
        public var subscriber = false
        /// The request attributes read, one bit per `RequestAttributes.Name` in declaration order.
        public var device: UInt8 = 0

        public init() {}

        public func read(_ name: RequestAttributes.Name) -> Bool {
            guard let index = RequestAttributes.Name.allCases.firstIndex(of: name) else { return false }
            return device & (1 << UInt8(index)) != 0
        }

        mutating func note(_ name: RequestAttributes.Name) {
            guard let index = RequestAttributes.Name.allCases.firstIndex(of: name) else { return }
            device |= 1 << UInt8(index)
        }
    }

    /// The parts of the facts only rules read; absent until something is set (`ruleInputs`).
    private struct RuleInputs {
        var audiences: [String: Condition] = [:]
        var unreadableAudiences: Set<String> = []
        var device = RequestAttributes()
        var subscriber = Subscriber.known([:])
        /// Versions parsed for this request: twenty rules on `device.appVersion` parse it once.
        var versions: [(text: String, version: SemanticVersion?)] = []
    }

    /// The app's audience `id` (from its serving snapshot), read in place.
    func audience(_ id: String) -> Condition? { ruleInputs?.audiences[id] }
    /// Whether audience `id`'s stored condition no longer reads: reaching one throws `UnreadableAudience`.
    func isUnreadableAudience(_ id: String) -> Bool { ruleInputs?.unreadableAudiences.contains(id) ?? false }
    /// The request attributes, set by the resolver before the rules run, when they read any
    /// (`PlacementEntry.readsDevice`); a rule reads them in place (`value(of:)`).
    mutating func knowDevice(_ attributes: RequestAttributes) {
        changeRuleInputs { $0.device = attributes }
    }

    /// Changes the rule inputs in place (taken out, so a value they hold stays uniquely referenced),
    /// made empty first when there are none.
    private mutating func changeRuleInputs(_ change: (inout RuleInputs) -> Void) {
        var inputs = ruleInputs.take() ?? RuleInputs()
        change(&inputs)
        ruleInputs = inputs
    }

    enum Subscriber {
        case unread(any SubscriberAttributeReader, appID: String)
        case known([String: ContextValue])
    }

    /// The facts of a request whose rules have not read anything yet (the SDK path's, and most).
    public init(context: PresentationContext, subscriberID: String? = nil) {
        self.context = context
        self.subscriberID = subscriberID
    }

    /// Facts with request attributes, stored attributes or audiences given (the dry run, tests).
    public init(
        context: PresentationContext, subscriberID: String? = nil, device: RequestAttributes = RequestAttributes(),
        subscriberAttributes: [String: ContextValue] = .init(), audiences: [String: Condition] = .init()
    ) {
        self.context = context
        self.subscriberID = subscriberID
        ruleInputs = RuleInputs(audiences: audiences, device: device, subscriber: .known(subscriberAttributes))
    }

    /// Where the stored attributes come from (set by the resolver, which knows the app).
    mutating func readSubscriberAttributes(from reader: any SubscriberAttributeReader, appID: String) {
        // The subscriber first: most requests have none, and matching `subscriber` copies its payload.
        guard let subscriberID, !subscriberID.isEmpty else { return }
        // Matched in place (`ruleInputs` is stored): no copy of the enum and its existential.
        switch ruleInputs?.subscriber {
        case nil: changeRuleInputs { $0.subscriber = .unread(reader, appID: appID) }
        case .known(let attributes)? where attributes.isEmpty:
            changeRuleInputs { $0.subscriber = .unread(reader, appID: appID) }
        default: break
        }
    }

    /// The subscriber's stored attributes as the attribute cache holds them (the resolver, on a hit
    /// on the I/O loop, where the database is not read).
    mutating func knowSubscriberAttributes(_ attributes: [String: ContextValue]) {
        changeRuleInputs { $0.subscriber = .known(attributes) }
    }

    /// The app's audiences and the unreadable ones, set together (the resolver, for a placement
    /// with rules): one change of the rule inputs, not two.
    mutating func knowAudiences(_ audiences: [String: Condition], unreadable: Set<String>) {
        changeRuleInputs {
            $0.audiences = audiences
            $0.unreadableAudiences = unreadable
        }
    }

    /// The value a key names, or nil when the request has none. Throws for an unreadable database
    /// (503) when a rule first reads the subscriber's stored attributes.
    mutating func value(of key: AttributeKey) throws -> ContextValue? {
        switch key {
        case .context(let name): return context[name]
        case .device(let name):
            consulted.note(name)
            return ruleInputs?.device[name].map(ContextValue.string)
        case .subscriber(let name):
            consulted.subscriber = true
            // Matched in place (`ruleInputs` is stored): no copy of the enum and its existential.
            switch ruleInputs?.subscriber {
            case nil: return nil
            case .known(let attributes)?: return attributes[name]
            case .unread(let reader, let appID)?:
                let attributes = try subscriberID.map { try reader.attributes(appID: appID, subscriberID: $0) } ?? [:]
                changeRuleInputs { $0.subscriber = .known(attributes) }
                return attributes[name]
            }
        }
    }

    /// Spends `steps` of the request's budget; throws `EvaluationBudgetExhausted` past it.
    @inline(__always)
    mutating func spend(_ steps: Int) throws {
        stepsLeft -= steps
        if stepsLeft < 0 { throw EvaluationBudgetExhausted() }
    }

    /// `text` as a version, parsed once per request.
    mutating func version(_ text: String) -> SemanticVersion? {
        for entry in ruleInputs?.versions ?? [] where entry.text == text { return entry.version }
        let parsed = SemanticVersion(text)
        changeRuleInputs { $0.versions.append((text, parsed)) }
        return parsed
    }
}

/// A condition reached an audience whose stored condition no longer reads.
struct UnreadableAudience: Error {
    let id: String
}

/// Reads a subscriber's stored attributes (the serving state, through the store).
public protocol SubscriberAttributeReader: Sendable {
    func attributes(appID: String, subscriberID: String) throws -> [String: ContextValue]
}

extension ConditionFailure {
    /// The failure as a key without `analytics` may see it: a comparison of a stored subscriber
    /// attribute keeps its path, key, operator and operand (the rule's own text) but not the
    /// subscriber's value nor whether there was one (`GET /v1/subscribers/{id}/attributes` needs
    /// `analytics` too).
    func hidingSubscriberValues() -> ConditionFailure {
        var copy = self
        if let key, case .success(.subscriber) = AttributeKey.parse(key),
            [.compared, .missing, .notAVersion].contains(reason)
        {
            copy.reason = .hidden
            copy.saw = nil
        }
        copy.alternatives = alternatives.map { $0.hidingSubscriberValues() }
        return copy
    }
}

/// The first part of a condition that did not hold, as the dry run answers it.
public struct ConditionFailure: Sendable, Equatable {
    public enum Reason: String, Sendable {
        /// The value was there and compared false.
        case compared
        /// The request has no value for the key.
        case missing
        /// A `semver_*` comparison met a value that is not a version.
        case notAVersion = "not_a_version"
        case noneMatched = "none_matched"
        case negatedConditionMatched = "negated_condition_matched"
        /// A comparison of a stored subscriber attribute, shown to a key without `analytics`: that
        /// it failed is said, what the subscriber's value was (or whether it had one) is not.
        case hidden
        case unknownAudience = "unknown_audience"
        case audienceNotMatched = "audience_not_matched"
        case noSubscriber = "no_subscriber"
        case outsideRollout = "outside_rollout"
    }

    public var path: String
    public var reason: Reason
    public var key: String? = nil
    public var op: Condition.Operator? = nil
    public var operand: Condition.Operand? = nil
    public var saw: ContextValue? = nil
    public var audience: String? = nil
    public var alternatives: [ConditionFailure] = []

    public var json: JSONValue {
        var o: [String: JSONValue] = ["path": .string(path), "reason": .string(reason.rawValue)]
        if let key { o["key"] = .string(key) }
        if let op { o["op"] = .string(op.rawValue) }
        if let value = operand?.json { o["value"] = value }
        if reason == .compared || reason == .missing || reason == .notAVersion || reason == .outsideRollout {
            o["saw"] = saw?.json ?? .null
        }
        if reason == .hidden { o["hidden"] = .string(APIScope.analytics.rawValue) }
        if let audience { o["audience"] = .string(audience) }
        if !alternatives.isEmpty { o["failures"] = .array(alternatives.map(\.json)) }
        o["message"] = .string(message)
        return .object(o)
    }

    /// The failure in words, naming the key, the operator, the expected and the seen value, so a
    /// reader (the console, an agent) need not rebuild the comparison from the path.
    public var message: String {
        let compared = [key, op?.rawValue, operand?.json?.canonicalString].compactMap { $0 }.joined(separator: " ")
        let seen = saw?.json.canonicalString ?? "nothing"
        switch reason {
        case .compared: return "\(compared) did not hold: the request had \(seen)."
        case .missing: return "\(compared) did not hold: the request has no \(key ?? "value")."
        case .notAVersion: return "\(compared) did not hold: \(seen) is not a version."
        case .hidden: return "\(compared) did not hold (the subscriber's value needs the analytics scope)."
        case .noneMatched: return "None of the alternatives matched."
        case .negatedConditionMatched: return "The condition under 'not' matched."
        case .unknownAudience: return "The app has no audience '\(audience ?? "")'."
        case .audienceNotMatched: return "The request is not in the audience '\(audience ?? "")'."
        case .noSubscriber: return "A rollout needs a subscriber id."
        case .outsideRollout: return "The subscriber's bucket \(seen) of 10,000 is outside the rollout."
        }
    }
}
