import Execution
import PaywallFormat

/// Where a subscriber landed in a running experiment.
public struct ExperimentAssignment: Sendable, Hashable {
    public enum Reason: String, Sendable {
        case bucket
        case noSubscriber = "no_subscriber"
        /// The client bucketed itself from the published allocation and asked for this variant.
        case client
    }
    public let experimentID: String
    /// The variant's name, or nil in the holdout.
    public let variant: String?
    public let reason: Reason

    public var isHoldout: Bool { variant == nil }

    public var json: JSONValue {
        [
            "id": .string(experimentID), "variant": variant.map { .string($0) } ?? .null, "holdout": .bool(isHoldout),
            "assignment": .string(reason.rawValue),
        ]
    }
}

/// The outcome of resolving a placement for a context.
public struct Resolution: Sendable {
    public let placement: String
    /// What is served; nil only for the holdout of an experiment (shown nothing).
    public let served: ServedVersion?
    public var version: PublishedVersion? { served?.published }
    /// The index of the rule that matched, or nil when the placement's own target serves.
    public let matchedRule: Int?
    /// Whether the serving paywall is archived (it keeps serving until reassigned).
    public let paywallArchived: Bool
    public let experiment: ExperimentAssignment?
    /// The dry run's account of every rule, in order (nil on the SDK path, which builds none).
    public var trace: [RuleTrace]? = nil
    /// Set instead of `served` when the client buckets itself (`ExperimentTargeting.clientBuckets`)
    /// and the placement reached this experiment without reading anything of the subscriber: the
    /// answer publishes the allocation, which every client may share.
    public var allocation: AppServingSnapshot.RunningExperiment? = nil
    /// When a rule of the placement next starts or ends (ms): an answer kept by a shared cache must
    /// not outlive it.
    public var nextScheduleChange: Int64? = nil

    public var json: JSONValue {
        var o: [String: JSONValue] = [
            "placement": .string(placement), "paywallId": version.map { .string($0.paywallID) } ?? .null,
            "version": version.map { .number($0.version) } ?? .null,
            "matchedRule": matchedRule.map { .number($0) } ?? .null, "paywallArchived": .bool(paywallArchived),
            "experiment": experiment?.json ?? .null,
        ]
        if let trace {
            o["trace"] = .array(trace.map(\.json))
            o["fallback"] = .bool(matchedRule == nil)
        }
        return .object(o)
    }
}

extension Resolution {
    /// The dry run as `scopes` may see it: what the database holds of a subscriber (attribute
    /// values, presentation counts) only with `analytics`, the scope `GET /v1/subscribers/…` needs;
    /// without it the trace still says which rule read them and what became of it.
    public func visible(to scopes: ScopeSet) -> Resolution {
        guard !scopes.contains(.analytics), let trace else { return self }
        var copy = self
        copy.trace = trace.map { rule in
            var rule = rule
            rule.failure = rule.failure?.hidingSubscriberValues()
            if rule.presentations != nil {
                rule.presentations = nil
                rule.presentationsHidden = true
            }
            return rule
        }
        return copy
    }
}

/// Who decides a subscriber's variant when a placement reaches a running experiment.
public enum ExperimentTargeting: Sendable, Equatable {
    /// The server buckets the subscriber (the SDK's authenticated endpoint, the dry run).
    case serverAssigns
    /// The client buckets itself from the published allocation (the cacheable path form); `chosen`
    /// is the variant it asks for (`?experiment=…&variant=…`), nil for the allocation itself.
    case clientBuckets(chosen: (experimentID: String, variant: String)?)

    public static func == (a: ExperimentTargeting, b: ExperimentTargeting) -> Bool {
        switch (a, b) {
        case (.serverAssigns, .serverAssigns): true
        case (.clientBuckets(let x), .clientBuckets(let y)):
            x?.experimentID == y?.experimentID && x?.variant == y?.variant
        default: false
        }
    }
}

extension ServingState: SubscriberAttributeReader {
    /// For a context alone: the MCP dry run and tests.
    public func resolve(
        appID: String, placement key: String, context: PresentationContext, subscriberID: String? = nil,
        trace: Bool = false
    ) throws -> Resolution {
        var facts = RequestFacts(context: context, subscriberID: subscriberID)
        return try resolve(appID: appID, placement: key, facts: &facts, trace: trace)
    }

    /// The one resolution function, used by the SDK endpoint and the dashboard's dry run: the first
    /// active rule whose condition matches, whose frequency cap is not reached, *and* whose target
    /// can serve wins; otherwise the placement's own target. A target is a paywall with a published
    /// version, or a running experiment (then the subscriber's variant, the control without a
    /// subscriber, or the holdout). With `trace`, every rule's fate is recorded (the dry run); the
    /// SDK path records nothing and builds no strings.
    /// `device` gives the request attributes; it is called only when the placement's rules read them.
    public func resolve(
        appID: String, placement key: String, facts: inout RequestFacts, trace: Bool = false,
        experiments: ExperimentTargeting = .serverAssigns, device: () throws -> RequestAttributes? = { nil }
    ) throws -> Resolution {
        try resolve(
            app: IDKey(appID), placement: HashedName(key), facts: &facts, trace: trace, experiments: experiments,
            device: device)
    }

    /// The same, for an app whose id's hash is known (`VerifiedKey.withApp(for:)`) and a placement
    /// key whose hash is (`HashedName`).
    package func resolve(
        app: IDKey, placement name: HashedName, facts: inout RequestFacts, trace: Bool = false,
        experiments: ExperimentTargeting = .serverAssigns, device: () throws -> RequestAttributes? = { nil }
    ) throws -> Resolution {
        let appID = app.text
        let key = name.text
        guard let snapshot = snapshot(app), let placement = snapshot.placements[name] else {
            throw ServiceError(.notFound, "placement_not_found", "No placement '\(key)' in this app.")
        }
        // What the database holds of a subscriber is not read on an I/O loop: the request is run
        // again on the handler pool, in its app's share (docs/http.md, "Where requests run"), and
        // fills the attribute cache there. On a hit, rules on `subscriber.*` answer here; a
        // frequency cap counts presentations, which only the database knows.
        // A placement that reads nothing stored (most) skips all of this.
        if placement.readsStore, let subscriberID = facts.subscriberID, !subscriberID.isEmpty {
            if InlineExecution.isActive {
                guard !placement.capped, let hit = attributeCache.lookup(appID: appID, subscriberID: subscriberID)
                else { throw HTTPOffload() }
                facts.knowSubscriberAttributes(hit)
            } else {
                facts.readSubscriberAttributes(from: self, appID: appID)
            }
        }
        if placement.readsDevice, let attributes = try device() { facts.knowDevice(attributes) }
        // Only a rule's condition reads the audiences: a placement without rules (most) copies
        // neither table (each copy a retain and a release on storage every request shares).
        if !placement.rules.isEmpty {
            facts.knowAudiences(snapshot.audiences, unreadable: snapshot.unreadableAudiences)
        }
        // Serving's counters: a dry run (traced) is not serving.
        defer { if !trace && facts.versionsNotParsed > 0 { activity.recordVersionsNotParsed(facts.versionsNotParsed) } }
        // Read once, and only for a placement whose rules have a window or a cap (a clock read
        // is a vDSO call: of a plain placement's request, as much as its routing's compares).
        lazy var now = clock.now()
        let nextScheduleChange =
            placement.scheduleBoundaries.isEmpty ? nil : placement.scheduleBoundaries.first { $0 > now }
        var traces: [RuleTrace] = []
        // The rule being tried when the request's evaluation budget ran out (EvaluationCost).
        var reached = 0
        // Iterating even no rules retained and released the array (a placement without rules: most).
        if !placement.rules.isEmpty {
            do {
                for (index, rule) in placement.rules.enumerated() {
                    reached = index
                    guard rule.isActive(at: now) else {
                        if trace { traces.append(RuleTrace(rule: index, outcome: .inactive)) }
                        continue
                    }
                    guard let condition = rule.condition else {
                        throw DataFailure.recorded(
                            .storedRule,
                            "rule \(index) of placement '\(key)' cannot be read (\(rule.unreadable ?? "unknown")); "
                                + "set the placement's rules again", in: activity)
                    }
                    do {
                        if trace {
                            if let failure = try condition.explain(&facts, path: "$.rules[\(index)].when") {
                                traces.append(RuleTrace(rule: index, outcome: .notMatched, failure: failure))
                                continue
                            }
                        } else if try !condition.matches(&facts) {
                            continue
                        }
                    } catch let unreadable as UnreadableAudience {
                        throw DataFailure.recorded(
                            .storedRule,
                            "audience '\(unreadable.id)' (used by rule \(index) of placement '\(key)') cannot be read; "
                                + "set the audience again", in: activity)
                    }
                    // A cap decides for a subscriber, and its absence lets a request without one through.
                    if rule.frequencyCap != nil { facts.consulted.subscriber = true }
                    if let cap = rule.frequencyCap, let subscriberID = facts.subscriberID, !subscriberID.isEmpty {
                        // A cap reads at most `count` events: that is its price.
                        try facts.spend(cap.count)
                        let shown = try presentations(
                            snapshot, placement: key, rule: rule, subscriberID: subscriberID,
                            since: now - cap.seconds * 1000,
                            atMost: cap.count)
                        if shown >= cap.count {
                            if trace {
                                traces.append(
                                    RuleTrace(rule: index, outcome: .capped, presentations: shown, frequencyCap: cap))
                            } else {
                                activity.recordRuleCapped()
                            }
                            continue
                        }
                    }
                    // Returned as built (a `var` set afterwards was copied out and destroyed per request).
                    if let resolution = try target(
                        snapshot, key, paywall: rule.paywall, experimentID: rule.experimentID, facts: &facts,
                        experiments: experiments, rule: index, nextScheduleChange: nextScheduleChange)
                    {
                        guard trace else { return resolution }
                        traces.append(
                            RuleTrace(
                                rule: index, outcome: .matched, frequencyCap: rule.frequencyCap,
                                targetArchived: resolution.paywallArchived))
                        traces += (index + 1..<placement.rules.count).map { RuleTrace(rule: $0, outcome: .notReached) }
                        var traced = resolution
                        traced.trace = traces
                        return traced
                    }
                    if trace { traces.append(RuleTrace(rule: index, outcome: .targetUnpublished)) }
                }
            } catch is EvaluationBudgetExhausted {
                // Stored before budgets were checked at write time: the rest of the rules are not
                // tried, and the placement's own target serves (counted; the dry run says where).
                if trace {
                    traces.append(RuleTrace(rule: reached, outcome: .budgetExhausted))
                    traces += (reached + 1..<placement.rules.count).map { RuleTrace(rule: $0, outcome: .notReached) }
                } else {
                    activity.recordEvaluationBudgetExhausted()
                }
            }
        }
        if let resolution = try target(
            snapshot, key, paywall: placement.paywall, experimentID: placement.experimentID, facts: &facts,
            experiments: experiments, rule: nil, nextScheduleChange: nextScheduleChange)
        {
            guard trace else { return resolution }
            var traced = resolution
            traced.trace = traces
            return traced
        }
        throw ServiceError(
            .notFound, "no_published_paywall",
            "Placement '\(key)' points at paywall '\(placement.paywallID)', which has no published version.")
    }

    /// How often the subscriber was shown what the rule serves on this placement since `since`,
    /// counted up to `atMost` (the cap's count: whether it is reached is all that matters).
    private func presentations(
        _ snapshot: AppServingSnapshot, placement: String, rule: ServingRule, subscriberID: String, since: Int64,
        atMost: Int
    ) throws -> Int {
        var paywalls = [rule.paywallID]
        if let experimentID = rule.experimentID, let experiment = snapshot.experiments[experimentID] {
            paywalls += experiment.variants.map(\.paywallID).filter { $0 != rule.paywallID }
        }
        return try store.read { tx in
            try tx.events.presentations(
                appID: snapshot.appID, subscriberID: subscriberID, placement: placement, paywallIDs: paywalls,
                since: since,
                atMost: atMost)
        }
    }

    /// A subscriber's stored attributes, typed as context values (what `subscriber.KEY` compares):
    /// from the attribute cache, or read from the database and cached (none stored is cached too).
    /// The ticket is taken before the read, so a write invalidated meanwhile is not cached stale.
    public func attributes(appID: String, subscriberID: String) throws -> [String: ContextValue] {
        if let hit = attributeCache.lookup(appID: appID, subscriberID: subscriberID) { return hit }
        let ticket = attributeCache.ticket()
        guard
            let stored = try store.read({ tx in try tx.subscribers.attributes(appID: appID, subscriberID: subscriberID)
            })
        else {
            attributeCache.insert(appID: appID, subscriberID: subscriberID, attributes: [:], bytes: 0, ticket: ticket)
            return [:]
        }
        let json = try DataFailure.storedJSON(
            Array(stored.attributes.utf8), what: "the attributes of subscriber '\(subscriberID)'", activity: activity)
        var attributes: [String: ContextValue] = [:]
        for (key, value) in json.objectValue ?? [:] { attributes[key] = ContextValue(json: value) }
        attributeCache.insert(
            appID: appID, subscriberID: subscriberID, attributes: attributes, bytes: stored.attributes.utf8.count,
            ticket: ticket)
        return attributes
    }

    private func target(
        _ snapshot: AppServingSnapshot, _ key: String, paywall: IDKey, experimentID: String?,
        facts: inout RequestFacts, experiments: ExperimentTargeting, rule: Int?, nextScheduleChange: Int64?
    ) throws -> Resolution? {
        let subscriberID = facts.subscriberID
        if let experimentID, let experiment = snapshot.experiments[experimentID] {
            if case .clientBuckets(let chosen) = experiments, !facts.consulted.subscriber {
                return try clientTarget(
                    snapshot, key, experiment, chosen: chosen, rule: rule, nextScheduleChange: nextScheduleChange)
            }
            // The server's assignment depends on the subscriber, or on there being none.
            facts.consulted.subscriber = true
            let assignment: ExperimentAssignment
            var variantPaywall: String?
            if let subscriberID, !subscriberID.isEmpty {
                let slot = experiment.allocation[
                    Allocation.bucket(experimentID: experimentID, subscriberID: subscriberID)]
                if Int(slot) < experiment.variants.count {
                    variantPaywall = experiment.variants[Int(slot)].paywallID
                    assignment = ExperimentAssignment(
                        experimentID: experimentID, variant: experiment.variants[Int(slot)].name, reason: .bucket)
                } else {
                    assignment = ExperimentAssignment(experimentID: experimentID, variant: nil, reason: .bucket)
                }
            } else if let control = experiment.variants.first {
                variantPaywall = control.paywallID
                assignment = ExperimentAssignment(
                    experimentID: experimentID, variant: control.name, reason: .noSubscriber)
            } else {
                return nil
            }
            guard let variantPaywall else {
                return Resolution(
                    placement: key, served: nil, matchedRule: rule, paywallArchived: false, experiment: assignment,
                    nextScheduleChange: nextScheduleChange)
            }
            if let served = snapshot.latestVersions[variantPaywall] {
                return Resolution(
                    placement: key, served: served, matchedRule: rule,
                    paywallArchived: snapshot.isArchived(variantPaywall), experiment: assignment,
                    nextScheduleChange: nextScheduleChange)
            }
        }
        guard let served = snapshot.latestVersions[paywall] else { return nil }
        return Resolution(
            placement: key, served: served, matchedRule: rule, paywallArchived: snapshot.isArchived(paywall.text),
            experiment: nil, nextScheduleChange: nextScheduleChange)
    }

    /// A placement reaching `experiment` for a client that buckets itself: the allocation, or the
    /// variant it chose (404 for a name the experiment does not have; a choice made from another
    /// experiment's allocation — the placement has moved on — gets the current allocation).
    private func clientTarget(
        _ snapshot: AppServingSnapshot, _ key: String, _ experiment: AppServingSnapshot.RunningExperiment,
        chosen: (experimentID: String, variant: String)?, rule: Int?, nextScheduleChange: Int64?
    ) throws -> Resolution? {
        guard let chosen, chosen.experimentID == experiment.id else {
            return Resolution(
                placement: key, served: nil, matchedRule: rule, paywallArchived: false, experiment: nil,
                allocation: experiment, nextScheduleChange: nextScheduleChange)
        }
        guard let variant = experiment.variants.first(where: { $0.name == chosen.variant }) else {
            throw ServiceError(
                .notFound, "variant_not_found",
                "Experiment '\(experiment.id)' has no variant '\(chosen.variant)'; fetch the placement's allocation again."
            )
        }
        guard let served = snapshot.latestVersions[variant.paywallID] else { return nil }
        return Resolution(
            placement: key, served: served, matchedRule: rule, paywallArchived: snapshot.isArchived(variant.paywallID),
            experiment: ExperimentAssignment(experimentID: experiment.id, variant: variant.name, reason: .client),
            nextScheduleChange: nextScheduleChange)
    }
}
