import PaywallFormat
import Synchronization

/// One placement rule as the resolver sees it.
public struct ServingRule: Sendable {
    /// Nil when the stored condition no longer reads (`unreadable` says why): resolution then
    /// answers a 500 for every request that reaches this rule rather than skip it, since skipping
    /// would silently change who sees what.
    public let condition: Condition?
    public let unreadable: String?
    public let paywallID: String
    public let experimentID: String?
    public let activeFrom: Int64?
    public let activeUntil: Int64?

    func isActive(at now: Int64) -> Bool {
        (activeFrom.map { now >= $0 } ?? true) && (activeUntil.map { now < $0 } ?? true)
    }
}

/// What the SDK path needs of one app, as an immutable snapshot: placements with their rules, and
/// the latest published version of every paywall. Swapped whole; never mutated in place (a class,
/// so taking it from the lock is one retain, not a copy of its dictionaries).
public final class AppServingSnapshot: Sendable {
    public struct PlacementEntry: Sendable {
        public let key: String
        public let paywallID: String
        public let experimentID: String?
        public let rules: [ServingRule]
    }

    /// A running experiment as the resolver needs it.
    public struct RunningExperiment: Sendable {
        public let id: String
        public let variants: [(name: String, paywallID: String)]
        public let allocation: [UInt8]
    }

    public let appID: String
    public let placements: [String: PlacementEntry]
    public let experiments: [String: RunningExperiment]
    public let latestVersions: VersionTable
    public let archivedPaywalls: Set<String>
    /// The fallback bundle per (client schema version, colour scheme), built on first request. It
    /// depends only on this snapshot, which any change replaces, so it never goes stale.
    let fallbackBundles = Mutex<[FallbackBundleKey: Representation]>([:])

    struct FallbackBundleKey: Hashable {
        let clientVersion: Int
        let colorScheme: ColorScheme
    }

    init(appID: String, placements: [String: PlacementEntry], experiments: [String: RunningExperiment],
         latestVersions: VersionTable, archivedPaywalls: Set<String>) {
        self.appID = appID
        self.placements = placements
        self.experiments = experiments
        self.latestVersions = latestVersions
        self.archivedPaywalls = archivedPaywalls
    }
}

/// A published version with the forms it is served in; immutable, so shared across snapshots.
public final class ServedVersion: Sendable {
    public let published: PublishedVersion
    public let forms: ServedForms
    /// Read once here so locale negotiation does not walk the document per request.
    public let locales: [String]
    public let defaultLocale: String
    /// The `{{context.KEY}}` keys the document's texts use: all a page's bytes can depend on of a
    /// request's context (so other context values neither split the page cache nor re-render).
    public let contextKeys: Set<String>
    /// Pages of this version cached for a context value (`RepresentationCache.maxContextVariants`).
    private let contextVariants = Atomic<Int>(0)

    /// A version loaded from storage (validated when it was published): its older forms are built lazily.
    convenience init(published: PublishedVersion) {
        self.init(published: published, forms: ServedForms(published: published.document))
    }

    init(published: PublishedVersion, forms: ServedForms) {
        self.published = published
        self.forms = forms
        locales = published.document["locales"]?.arrayValue?.compactMap(\.stringValue) ?? []
        defaultLocale = published.document["defaultLocale"]?.stringValue ?? locales.first ?? "en"
        var keys = Set<String>()
        for entry in PaywallLocalization.texts(in: published.document) {
            for template in entry.values.values {
                for variable in extractVariables(template) where variable.hasPrefix("context.") {
                    keys.insert(String(variable.dropFirst("context.".count)))
                }
            }
        }
        contextKeys = keys
    }

    /// Takes one of the version's `max` context-variant slots; false when all are taken.
    func reserveContextVariant(max: Int) -> Bool {
        var current = contextVariants.load(ordering: .relaxed)
        while current < max {
            let (exchanged, original) = contextVariants.compareExchange(expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Gives a slot back (its page was evicted, or never stored).
    func releaseContextVariant() {
        let before = contextVariants.subtract(1, ordering: .relaxed).oldValue
        precondition(before > 0, "released a context variant that was not reserved")
    }
}

/// Where a subscriber landed in a running experiment.
public struct ExperimentAssignment: Sendable, Hashable {
    public enum Reason: String, Sendable { case bucket, noSubscriber = "no_subscriber" }
    public let experimentID: String
    /// The variant's name, or nil in the holdout.
    public let variant: String?
    public let reason: Reason

    public var isHoldout: Bool { variant == nil }

    public var json: JSONValue {
        ["id": .string(experimentID), "variant": variant.map { .string($0) } ?? .null, "holdout": .bool(isHoldout),
         "assignment": .string(reason.rawValue)]
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

    public var json: JSONValue {
        [
            "placement": .string(placement), "paywallId": version.map { .string($0.paywallID) } ?? .null,
            "version": version.map { .number($0.version) } ?? .null,
            "matchedRule": matchedRule.map { .number($0) } ?? .null, "paywallArchived": .bool(paywallArchived),
            "experiment": experiment?.json ?? .null,
        ]
    }
}

/// The in-memory serving state of every app. Changes reach it through the change feed
/// (`apply(appID:_:)`, in ServingState+Loading.swift): a write catches up before it answers, and
/// an update re-reads what changed in one read transaction under the refresh lock, so the snapshot
/// installed last is always at least as new as every commit that preceded it, and the very next
/// request sees the write.
public final class ServingState: Sendable {
    let store: any DataStore
    private let clock: Clock
    let snapshots = ReadWriteLock<[String: AppServingSnapshot]>([:])
    let refreshLock = Mutex<Void>(())
    /// Published versions never change, so each is read and prepared once.
    let versions = Mutex<[VersionKey: ServedVersion]>([:])

    struct VersionKey: Hashable {
        let paywallID: String
        let version: Int
    }

    /// Where unreadable stored rules and versions are counted.
    let activity: ServiceActivity

    /// Where this server's media are reached: the fallback bundle names them as the SDK's JSON does.
    let assetLocation: AssetLocation

    public init(store: any DataStore, clock: Clock, activity: ServiceActivity = ServiceActivity(),
                assetLocation: AssetLocation = AssetLocation(publicOrigin: nil)) {
        self.activity = activity
        self.assetLocation = assetLocation
        self.store = store
        self.clock = clock
    }

    /// Keeps a version prepared by the publish that created it, so the refresh does not redo it.
    func remember(_ served: ServedVersion) {
        versions.withLock { $0[VersionKey(paywallID: served.published.paywallID, version: served.published.version)] = served }
    }

    public func snapshot(appID: String) -> AppServingSnapshot? {
        snapshots.read { $0[appID] }
    }

    /// The one resolution function, used by the SDK endpoint and the dashboard's dry run: the first
    /// active rule whose condition matches *and* whose target can serve wins; otherwise the
    /// placement's own target. A target is a paywall with a published version, or a running
    /// experiment (then the subscriber's variant, the control without a subscriber, or the holdout).
    public func resolve(appID: String, placement key: String, context: PresentationContext, subscriberID: String? = nil) throws -> Resolution {
        guard let snapshot = snapshot(appID: appID), let placement = snapshot.placements[key] else {
            throw ServiceError(.notFound, "placement_not_found", "No placement '\(key)' in this app.")
        }
        let now = clock.now()
        for (index, rule) in placement.rules.enumerated() where rule.isActive(at: now) {
            guard let condition = rule.condition else {
                throw DataFailure.recorded(.storedRule, "rule \(index) of placement '\(key)' cannot be read (\(rule.unreadable ?? "unknown")); "
                                           + "set the placement's rules again", in: activity)
            }
            guard condition.matches(context) else { continue }
            if let resolution = target(snapshot, key, paywallID: rule.paywallID, experimentID: rule.experimentID, subscriberID: subscriberID, rule: index) {
                return resolution
            }
        }
        if let resolution = target(snapshot, key, paywallID: placement.paywallID, experimentID: placement.experimentID, subscriberID: subscriberID, rule: nil) {
            return resolution
        }
        throw ServiceError(.notFound, "no_published_paywall", "Placement '\(key)' points at paywall '\(placement.paywallID)', which has no published version.")
    }

    private func target(_ snapshot: AppServingSnapshot, _ key: String, paywallID: String, experimentID: String?,
                        subscriberID: String?, rule: Int?) -> Resolution? {
        if let experimentID, let experiment = snapshot.experiments[experimentID] {
            let assignment: ExperimentAssignment
            var variantPaywall: String?
            if let subscriberID, !subscriberID.isEmpty {
                let slot = experiment.allocation[Allocation.bucket(experimentID: experimentID, subscriberID: subscriberID)]
                if Int(slot) < experiment.variants.count {
                    variantPaywall = experiment.variants[Int(slot)].paywallID
                    assignment = ExperimentAssignment(experimentID: experimentID, variant: experiment.variants[Int(slot)].name, reason: .bucket)
                } else {
                    assignment = ExperimentAssignment(experimentID: experimentID, variant: nil, reason: .bucket)
                }
            } else if let control = experiment.variants.first {
                variantPaywall = control.paywallID
                assignment = ExperimentAssignment(experimentID: experimentID, variant: control.name, reason: .noSubscriber)
            } else {
                return nil
            }
            guard let variantPaywall else {
                return Resolution(placement: key, served: nil, matchedRule: rule, paywallArchived: false, experiment: assignment)
            }
            if let served = snapshot.latestVersions[variantPaywall] {
                return Resolution(placement: key, served: served, matchedRule: rule,
                                  paywallArchived: snapshot.archivedPaywalls.contains(variantPaywall), experiment: assignment)
            }
        }
        guard let served = snapshot.latestVersions[paywallID] else { return nil }
        return Resolution(placement: key, served: served, matchedRule: rule, paywallArchived: snapshot.archivedPaywalls.contains(paywallID),
                          experiment: nil)
    }

    /// The fallback bundle as an answer: built once per snapshot and client form, so fetching it
    /// again (and its 304) is a lookup, like the paywall endpoint's. Two first requests racing may
    /// both build it; the bytes are the same, so either copy serves.
    public func fallbackBundleRepresentation(appID: String, clientVersion: Int, colorScheme: ColorScheme) -> Representation {
        let snapshot = snapshot(appID: appID)
        func build() -> Representation {
            Representation(body: Self.fallbackBundle(snapshot, appID: appID, clientVersion: clientVersion, colorScheme: colorScheme,
                                                     location: assetLocation, activity: activity).canonicalBytes,
                           headers: ["Content-Type": "application/json", "Cache-Control": "no-cache",
                                     "Vary": "X-Xizor-Schema-Version, Sec-CH-Prefers-Color-Scheme"])
        }
        guard let snapshot else { return build() }
        let key = AppServingSnapshot.FallbackBundleKey(clientVersion: clientVersion, colorScheme: colorScheme)
        if let cached = snapshot.fallbackBundles.withLock({ $0[key] }) { return cached }
        let built = build()
        snapshot.fallbackBundles.withLock { $0[key] = built }
        return built
    }

    /// Every placement's own paywall (rules aside) in the client's form: what an app bundles as
    /// the last step of its offline fallback chain. Documents carry every locale. A paywall whose
    /// form cannot be built is left out of the bundle and counted as a data failure (the bundle is
    /// a fallback: the others are still worth shipping).
    private static func fallbackBundle(_ snapshot: AppServingSnapshot?, appID: String, clientVersion: Int, colorScheme: ColorScheme,
                                       location: AssetLocation, activity: ServiceActivity) -> JSONValue {
        var placements: [String: JSONValue] = [:]
        if let snapshot {
            for (key, placement) in snapshot.placements {
                guard let served = snapshot.latestVersions[placement.paywallID] else { continue }
                let document: JSONValue, schemaVersion: Int
                do { (document, schemaVersion, _) = try served.forms.form(clientVersion: clientVersion, colorScheme: colorScheme) } catch {
                    activity.recordDataFailure(.storedDocument)
                    continue
                }
                placements[key] = [
                    "paywallId": .string(placement.paywallID), "version": .number(served.published.version),
                    "schemaVersion": .number(schemaVersion), "document": location.forSDK(document, appID: appID),
                ]
            }
        }
        return ["placements": .object(placements)]
    }
}
