import PaywallFormat
import Synchronization

/// One placement rule as the resolver sees it (a class: walking the rules retains each once, not
/// every member of a copied struct).
public final class ServingRule: Sendable {
    /// Nil when the stored condition no longer reads (`unreadable` says why): resolution then
    /// answers a 500 for every request that reaches this rule rather than skip it, since skipping
    /// would silently change who sees what.
    public let condition: Condition?
    public let unreadable: String?
    /// The paywall it serves, with its id's hash (looked up in the version table per request).
    let paywall: IDKey
    public var paywallID: String { paywall.text }
    public let experimentID: String?
    public let activeFrom: Int64?
    public let activeUntil: Int64?
    public let frequencyCap: FrequencyCap?

    init(
        condition: Condition?, unreadable: String?, paywallID: String, experimentID: String?, activeFrom: Int64?,
        activeUntil: Int64?,
        frequencyCap: FrequencyCap?
    ) {
        self.condition = condition
        self.unreadable = unreadable
        paywall = IDKey(paywallID)
        self.experimentID = experimentID
        self.activeFrom = activeFrom
        self.activeUntil = activeUntil
        self.frequencyCap = frequencyCap
    }

    /// `now` is read only for a rule with a window (a clock read is a vDSO call).
    func isActive(at now: @autoclosure () -> Int64) -> Bool {
        guard activeFrom != nil || activeUntil != nil else { return true }
        let now = now()
        return (activeFrom.map { now >= $0 } ?? true) && (activeUntil.map { now < $0 } ?? true)
    }
}

/// What the SDK path needs of one app, as an immutable snapshot: placements with their rules, and
/// the latest published version of every paywall. Swapped whole; never mutated in place (a class,
/// so taking it from the lock is one retain, not a copy of its dictionaries).
public final class AppServingSnapshot: Sendable {
    /// A class, so a request's lookup retains one reference rather than copying its members.
    public final class PlacementEntry: Sendable {
        public let key: String
        /// Its own paywall, with its id's hash (looked up in the version table per request).
        let paywall: IDKey
        public var paywallID: String { paywall.text }
        public let experimentID: String?
        public let rules: [ServingRule]
        /// Whether a rule reads request attributes: only then does a request's header parsing happen.
        public let readsDevice: Bool
        /// Whether resolving it for a subscriber may read the database (a rule on `subscriber.*`,
        /// itself or through an audience, or a frequency cap): such a request leaves the I/O loop.
        public let readsStore: Bool
        /// Whether a rule has a frequency cap: counting presentations always reads the database, so
        /// such a request leaves the I/O loop even when the subscriber's attributes are cached.
        public let capped: Bool
        /// Every rule's `activeFrom` and `activeUntil`, sorted: an answer a shared cache keeps
        /// must not outlive the next one (`Resolution.nextScheduleChange`).
        public let scheduleBoundaries: [Int64]

        init(
            key: String, paywallID: String, experimentID: String?, rules: [ServingRule], audiences: [String: Condition]
        ) {
            self.key = key
            paywall = IDKey(paywallID)
            self.experimentID = experimentID
            self.rules = rules
            readsDevice = rules.contains { $0.condition?.readsDevice(audiences: audiences) ?? false }
            readsStore = rules.contains {
                $0.frequencyCap != nil || ($0.condition?.readsSubscriber(audiences: audiences) ?? false)
            }
            capped = rules.contains { $0.frequencyCap != nil }
            scheduleBoundaries = rules.flatMap { [$0.activeFrom, $0.activeUntil].compactMap { $0 } }.sorted()
        }
    }

    /// What routes a request to a paywall, re-read together on a routing change.
    public struct Routing: Sendable {
        public var placements: [HashedName: PlacementEntry] = [:]
        public var experiments: [String: RunningExperiment] = [:]
        public var audiences: [String: Condition] = [:]
        public var unreadableAudiences: Set<String> = []
    }

    /// A running experiment as the resolver needs it.
    /// A class: an answer publishing the allocation is cached by this object's identity, which a
    /// routing reload replaces, so it never outlives the experiment's state it encodes.
    public final class RunningExperiment: Sendable {
        public let id: String
        public let variants: [(name: String, paywallID: String)]
        public let allocation: [UInt8]

        init(id: String, variants: [(name: String, paywallID: String)], allocation: [UInt8]) {
            self.id = id
            self.variants = variants
            self.allocation = allocation
        }

        /// The allocation as runs of buckets, in order, covering 0..<`Allocation.bucketCount`:
        /// `variant` nil is the holdout (a bucket no slot claims counts as the holdout, as the
        /// server's own assignment treats it).
        public var ranges: [(from: Int, to: Int, variant: String?)] {
            var ranges: [(from: Int, to: Int, variant: String?)] = []
            for (bucket, slot) in allocation.enumerated() {
                let variant = Int(slot) < variants.count ? variants[Int(slot)].name : nil
                if let last = ranges.last, last.variant == variant, last.to == bucket {
                    ranges[ranges.count - 1].to = bucket + 1
                } else {
                    ranges.append((bucket, bucket + 1, variant))
                }
            }
            return ranges
        }
    }

    public let appID: String
    /// `appID` with its hash (what a thread memo's entry is compared by).
    let appKey: IDKey
    /// By key, hashed once (`HashedName`): the SDK path brings its key's hash from the route memo.
    public let placements: [HashedName: PlacementEntry]
    public let experiments: [String: RunningExperiment]
    public let latestVersions: VersionTable
    public let archivedPaywalls: Set<String>
    /// The app's audiences by id; one whose stored condition no longer reads is in
    /// `unreadableAudiences` instead (a rule reaching it answers 500, as an unreadable rule does).
    public let audiences: [String: Condition]
    public let unreadableAudiences: Set<String>
    /// The fallback bundle per (client schema version, colour scheme), encoded on first request
    /// (`ServingState.keptWithSnapshot`; the SDK surface's encoded answer, whose type this module
    /// cannot name). It depends only on this snapshot, which any change replaces, so it never goes stale.
    let fallbackBundles = Mutex<[FallbackBundleKey: any AnyObject & Sendable]>([:])

    public struct FallbackBundleKey: Hashable, Sendable {
        public let clientVersion: Int
        public let colorScheme: ColorScheme
        public let store: ProductStore

        public init(clientVersion: Int, colorScheme: ColorScheme, store: ProductStore) {
            self.clientVersion = clientVersion
            self.colorScheme = colorScheme
            self.store = store
        }
    }

    /// Whether a paywall is archived; most apps have none, and asking an empty set still hashes the id.
    func isArchived(_ paywallID: String) -> Bool {
        !archivedPaywalls.isEmpty && archivedPaywalls.contains(paywallID)
    }

    init(appID: String, routing: Routing, latestVersions: VersionTable, archivedPaywalls: Set<String>) {
        self.appID = appID
        appKey = IDKey(appID)
        placements = routing.placements
        experiments = routing.experiments
        audiences = routing.audiences
        unreadableAudiences = routing.unreadableAudiences
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
    package func reserveContextVariant(max: Int) -> Bool {
        var current = contextVariants.load(ordering: .relaxed)
        while current < max {
            let (exchanged, original) = contextVariants.compareExchange(
                expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Gives a slot back (its page was evicted, or never stored).
    package func releaseContextVariant() {
        let before = contextVariants.subtract(1, ordering: .relaxed).oldValue
        precondition(before > 0, "released a context variant that was not reserved")
    }
}

/// The in-memory serving state of every app. Changes reach it through the change feed
/// (`apply(appID:_:)`, in ServingState+Loading.swift): a write catches up before it answers, and
/// an update re-reads what changed in one read transaction under the refresh lock, so the snapshot
/// installed last is always at least as new as every commit that preceded it, and the very next
/// request sees the write.
public final class ServingState: Sendable {
    let store: any DataStore
    public let clock: Clock
    /// Written only by `install`, which gives `snapshotsGeneration` a new value after each change.
    private let snapshots = ReadWriteLock<[IDKey: AppServingSnapshot]>([:])
    /// The generation of `snapshots` (`ThreadMemo`): the SDK path finds an app's snapshot in its
    /// thread's memo while this is the generation the memo's entry was read at.
    private let snapshotsGeneration = Atomic<UInt64>(MemoGeneration.next())
    private static let threadSnapshots = ThreadMemo(slots: 256)
    /// The kind's memo, held here so a lookup does not check the static's initialisation.
    private let threadSnapshots = ServingState.threadSnapshots
    let refreshLock = Mutex<Void>(())
    /// Published versions never change, so each is read and prepared once.
    let versions = Mutex<[VersionKey: ServedVersion]>([:])

    struct VersionKey: Hashable {
        let paywallID: String
        let version: Int
    }

    /// Where unreadable stored rules and versions are counted.
    package let activity: ServiceActivity

    /// Where this server's media are reached: the fallback bundle names them as the SDK's JSON does.
    let assetLocation: AssetLocation

    /// Subscribers' stored attributes, so a rule on `subscriber.*` answers on the I/O loop on a hit;
    /// the change feed's `subscriber` changes keep it right (SubscriberAttributeCache).
    public let attributeCache: SubscriberAttributeCache

    public init(
        store: any DataStore, clock: Clock, activity: ServiceActivity = ServiceActivity(),
        assetLocation: AssetLocation = AssetLocation(publicOrigin: nil),
        attributeCache: SubscriberAttributeCache = SubscriberAttributeCache()
    ) {
        self.attributeCache = attributeCache
        self.activity = activity
        self.assetLocation = assetLocation
        self.store = store
        self.clock = clock
    }

    /// Keeps a version prepared by the publish that created it, so the refresh does not redo it.
    func remember(_ served: ServedVersion) {
        versions.withLock {
            $0[VersionKey(paywallID: served.published.paywallID, version: served.published.version)] = served
        }
    }

    public func snapshot(appID: String) -> AppServingSnapshot? { snapshot(IDKey(appID)) }

    /// The app's current snapshot: from this thread's memo when the map has not changed since the
    /// thread read it, else from the map (and remembered).
    func snapshot(_ app: IDKey) -> AppServingSnapshot? {
        let stamp = snapshotsGeneration.load(ordering: .acquiring)
        let hash = Int(truncatingIfNeeded: app.fnv)
        // The snapshot is its own key (it knows its app) and value; only snapshots are remembered here.
        if let found = threadSnapshots.find(
            stamp: stamp, hash: hash, { unsafeDowncast($0, to: AppServingSnapshot.self).appKey == app })
        {
            return unsafeDowncast(found, to: AppServingSnapshot.self)
        }
        guard let found = snapshots.read({ $0[app] }) else { return nil }
        threadSnapshots.remember(stamp: stamp, hash: hash, key: found, value: found)
        return found
    }

    /// Makes `snapshot` the app's, then gives the map a new generation: a lookup that starts after
    /// this returns finds the new snapshot, in the map or in no thread's memo.
    func install(_ snapshot: AppServingSnapshot, appID: String) {
        snapshots.write { $0[IDKey(appID)] = snapshot }
        snapshotsGeneration.store(MemoGeneration.next(), ordering: .releasing)
    }

    /// A value built from the app's current snapshot and kept with it (the SDK surface keeps its
    /// encoded fallback bundle here), so fetching it again is a lookup, and it is dropped with the
    /// snapshot any change replaces: it never goes stale. Two first requests racing may both build
    /// it; built from the same snapshot, either copy serves.
    public func keptWithSnapshot<Value: AnyObject & Sendable>(
        appID: String, _ key: AppServingSnapshot.FallbackBundleKey, build: (AppServingSnapshot?) -> Value
    ) -> Value {
        guard let snapshot = snapshot(appID: appID) else { return build(nil) }
        if let cached = snapshot.fallbackBundles.withLock({ $0[key] }) as? Value { return cached }
        let built = build(snapshot)
        snapshot.fallbackBundles.withLock { $0[key] = built }
        return built
    }

    /// The fallback bundle of `snapshot` (see `fallbackBundle(_:appID:…)`), with this state's asset
    /// location and counters.
    public func fallbackBundle(
        _ snapshot: AppServingSnapshot?, appID: String, clientVersion: Int, colorScheme: ColorScheme,
        store: ProductStore
    ) -> JSONValue {
        Self.fallbackBundle(
            snapshot, appID: appID, clientVersion: clientVersion, colorScheme: colorScheme, store: store,
            location: assetLocation, activity: activity)
    }

    /// Every placement's own paywall (rules aside) in the client's form: what an app bundles as
    /// the last step of its offline fallback chain. Documents carry every locale. A paywall whose
    /// form cannot be built is left out of the bundle and counted as a data failure (the bundle is
    /// a fallback: the others are still worth shipping).
    private static func fallbackBundle(
        _ snapshot: AppServingSnapshot?, appID: String, clientVersion: Int, colorScheme: ColorScheme,
        store: ProductStore, location: AssetLocation, activity: ServiceActivity
    ) -> JSONValue {
        var placements: [String: JSONValue] = [:]
        if let snapshot {
            for (key, placement) in snapshot.placements {
                guard let served = snapshot.latestVersions[placement.paywallID] else { continue }
                let document: JSONValue
                let schemaVersion: Int
                do {
                    (document, schemaVersion, _) = try served.forms.form(
                        clientVersion: clientVersion, colorScheme: colorScheme, store: { store })
                } catch {
                    activity.recordDataFailure(.storedDocument)
                    continue
                }
                placements[key.text] = [
                    "paywallId": .string(placement.paywallID), "version": .number(served.published.version),
                    "schemaVersion": .number(schemaVersion), "document": location.forSDK(document, appID: appID),
                ]
            }
        }
        return ["placements": .object(placements)]
    }
}
