/// What the rollups read of one event (docs/analytics.md, "Rollups").
public struct RollupEvent: Sendable {
    public let name: String
    public let occurredAt: Int64
    public let placement: String?
    public let paywallID: String?
    public let version: Int?
    public let subscriberID: String?
    public let experimentID: String?
    public let variant: String?
    public let environment: DataEnvironment
    /// A `purchase_completed` that reported a numeric `price` and a string `currency`; nil otherwise.
    public let revenue: Revenue?

    public struct Revenue: Sendable {
        public let currency: String
        public let amount: Double
        public init(currency: String, amount: Double) {
            self.currency = currency
            self.amount = amount
        }
    }

    public init(
        name: String, occurredAt: Int64, placement: String?, paywallID: String?, version: Int?, subscriberID: String?,
        experimentID: String?, variant: String?, environment: DataEnvironment, revenue: Revenue?
    ) {
        self.name = name
        self.occurredAt = occurredAt
        self.placement = placement
        self.paywallID = paywallID
        self.version = version
        self.subscriberID = subscriberID
        self.experimentID = experimentID
        self.variant = variant
        self.environment = environment
        self.revenue = revenue
    }
}

/// The length of a rollup bucket: UTC hours and UTC days.
public enum RollupSpan: Int64, Sendable, CaseIterable {
    case hour = 3_600_000
    case day = 86_400_000

    public var milliseconds: Int64 { rawValue }

    /// The start of the bucket holding `time` (times are never negative).
    public func start(of time: Int64) -> Int64 { time - time % rawValue }

    /// The first bucket boundary at or after `time` (never negative, and far below `Int64.max`).
    public func boundary(atOrAfter time: Int64) -> Int64 {
        time % rawValue == 0 ? time : start(of: time) + rawValue
    }
}

/// One funnel rollup row's key: a bucket of one paywall version's events of one name.
public struct FunnelCellKey: Hashable, Sendable {
    public let paywallID: String
    public let version: Int
    /// "" for events sent without a placement.
    public let placement: String
    public let environment: DataEnvironment
    public let name: String
    public let span: RollupSpan
    public let bucket: Int64

    public init(
        paywallID: String, version: Int, placement: String, environment: DataEnvironment, name: String,
        span: RollupSpan, bucket: Int64
    ) {
        self.paywallID = paywallID
        self.version = version
        self.placement = placement
        self.environment = environment
        self.name = name
        self.span = span
        self.bucket = bucket
    }
}

/// A bucket's count of events and, for the names whose distinct subscribers are answered, their sketch.
public struct FunnelCell: Sendable {
    public var events: Int64
    public var subscribers: SubscriberSketch?

    public init(events: Int64 = 0, subscribers: SubscriberSketch? = nil) {
        self.events = events
        self.subscribers = subscribers
    }

    /// One more event, and its subscriber into the sketch when the cell keeps one.
    mutating func count(_ subscriber: String?) {
        events += 1
        if let subscriber { subscribers?.insert(subscriber) }
    }

    public mutating func merge(_ other: FunnelCell) {
        events += other.events
        if let theirs = other.subscribers {
            if subscribers == nil { subscribers = theirs } else { subscribers?.merge(theirs) }
        }
    }
}

/// One revenue rollup row's key: a bucket of one paywall version's priced purchases in one currency.
public struct RevenueCellKey: Hashable, Sendable {
    public let paywallID: String
    public let version: Int
    public let placement: String
    public let environment: DataEnvironment
    public let currency: String
    public let span: RollupSpan
    public let bucket: Int64

    public init(
        paywallID: String, version: Int, placement: String, environment: DataEnvironment, currency: String,
        span: RollupSpan, bucket: Int64
    ) {
        self.paywallID = paywallID
        self.version = version
        self.placement = placement
        self.environment = environment
        self.currency = currency
        self.span = span
        self.bucket = bucket
    }
}

/// Revenue in one currency and the purchases that brought it.
public struct RevenueCell: Sendable, Equatable {
    public var amount: Double
    public var purchases: Int64

    public init(amount: Double = 0, purchases: Int64 = 0) {
        self.amount = amount
        self.purchases = purchases
    }

    public mutating func merge(_ other: RevenueCell) {
        amount += other.amount
        purchases += other.purchases
    }
}

/// One variant of an experiment in one environment: the unit experiment results count by.
public struct ExperimentArm: Hashable, Sendable {
    public let experimentID: String
    public let variant: String
    public let environment: DataEnvironment

    public init(experimentID: String, variant: String, environment: DataEnvironment) {
        self.experimentID = experimentID
        self.variant = variant
        self.environment = environment
    }
}

/// A subscriber of one arm.
public struct ExperimentMember: Hashable, Sendable {
    public let arm: ExperimentArm
    public let subscriberID: String

    public init(arm: ExperimentArm, subscriberID: String) {
        self.arm = arm
        self.subscriberID = subscriberID
    }
}

/// What a member of an arm has done: a state that only grows (bits are only ever added), so its
/// counts move once per subscriber however many events repeat it and in whatever order they arrive.
public struct MemberProgress: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) {
        precondition(rawValue <= 3, "a member's progress has two bits")
        self.rawValue = rawValue
    }

    /// Saw the variant's paywall (`paywall_open`).
    public static let opened = MemberProgress(rawValue: 1)
    /// Completed a purchase (`purchase_completed`).
    public static let purchased = MemberProgress(rawValue: 2)
}

/// The rollups' share of a set of events, before it is stored (the job's fold) or merged into what
/// is (a read adding the events the job has not folded yet, or the raw minutes at a range's edges).
/// One definition of what each event adds, whichever of the three it serves.
public struct EventRollup: Sendable {
    /// The event names whose distinct subscribers a funnel answers (`uniqueSubscribers` and `conversions`).
    public static let sketchedNames: Set<String> = ["paywall_open", "purchase_completed"]

    public var funnel: [FunnelCellKey: FunnelCell] = [:]
    public var revenue: [RevenueCellKey: RevenueCell] = [:]
    public var impressions: [ExperimentArm: Int64] = [:]
    public var experimentRevenue: [ExperimentArm: [String: RevenueCell]] = [:]
    /// What each member's events of this set show (to be merged over what is stored).
    public var progress: [ExperimentMember: MemberProgress] = [:]

    public init() {}

    /// Counts `event` into everything the rollups keep: the funnel's and revenue's bucket of each of
    /// `spans`, and its experiment arm (the job's fold).
    public mutating func add(_ event: RollupEvent, spans: [RollupSpan]) {
        addToFunnel(event, spans: spans)
        addToExperiments(event)
    }

    /// Counts `event` into the funnel's and revenue's bucket of each of `spans` only: a funnel's read
    /// of raw minutes and queued events needs no experiment progress, which cost it a dictionary
    /// entry per subscriber's event.
    public mutating func addToFunnel(_ event: RollupEvent, spans: [RollupSpan]) {
        guard let paywallID = event.paywallID, let version = event.version else { return }
        let placement = event.placement ?? ""
        let sketched = Self.sketchedNames.contains(event.name)
        let subscriber = sketched ? event.subscriberID : nil
        for span in spans {
            let bucket = span.start(of: event.occurredAt)
            let key = FunnelCellKey(
                paywallID: paywallID, version: version, placement: placement, environment: event.environment,
                name: event.name, span: span, bucket: bucket)
            // One lookup, the cell changed where it is stored (the subscript's in-place access), so
            // its sketch has one reference while it grows.
            funnel[key, default: FunnelCell(subscribers: sketched ? SubscriberSketch() : nil)].count(subscriber)
            if let priced = event.revenue {
                let key = RevenueCellKey(
                    paywallID: paywallID, version: version, placement: placement, environment: event.environment,
                    currency: priced.currency, span: span, bucket: bucket)
                revenue[key, default: RevenueCell()].merge(RevenueCell(amount: priced.amount, purchases: 1))
            }
        }
    }

    /// Counts `event` into its experiment arm only (impressions, revenue, the member's progress): what
    /// experiment results add from the queue.
    public mutating func addToExperiments(_ event: RollupEvent) {
        guard let experimentID = event.experimentID, let variant = event.variant else { return }
        let arm = ExperimentArm(experimentID: experimentID, variant: variant, environment: event.environment)
        if event.name == "paywall_open" { impressions[arm, default: 0] += 1 }
        if let revenue = event.revenue {
            experimentRevenue[arm, default: [:]][revenue.currency, default: RevenueCell()].merge(
                RevenueCell(amount: revenue.amount, purchases: 1))
        }
        if let subscriber = event.subscriberID {
            var shown: MemberProgress = []
            if event.name == "paywall_open" { shown.insert(.opened) }
            if event.name == "purchase_completed" { shown.insert(.purchased) }
            // Any event of the arm makes the subscriber a member (exposed), with no progress or some.
            progress[ExperimentMember(arm: arm, subscriberID: subscriber), default: []].formUnion(shown)
        }
    }

    /// How each arm's counts change when this set's progress is merged over `stored` (a member
    /// absent from it was not exposed yet): a subscriber counts once as exposed, once as having seen
    /// the paywall, once as converted (seen and bought, in either order), however many events say so.
    public func armCounts(over stored: [ExperimentMember: MemberProgress]) -> [ExperimentArm: VariantCounts] {
        var counts: [ExperimentArm: VariantCounts] = [:]
        for (arm, impressions) in impressions { counts[arm, default: VariantCounts()].impressions += Int(impressions) }
        for (member, progress) in progress {
            let before = stored[member]
            let after = (before ?? []).union(progress)
            let was = before ?? []
            var change = counts[member.arm] ?? VariantCounts()
            if before == nil { change.exposed += 1 }
            if !was.contains(.opened) && after.contains(.opened) { change.subscribers += 1 }
            if !was.contains(.purchased) && after.contains(.purchased) { change.exposedConverted += 1 }
            let both: MemberProgress = [.opened, .purchased]
            if !was.isSuperset(of: both) && after.isSuperset(of: both) { change.converted += 1 }
            counts[member.arm] = change
        }
        return counts
    }
}

extension VariantCounts {
    public mutating func add(_ other: VariantCounts) {
        impressions += other.impressions
        subscribers += other.subscribers
        converted += other.converted
        exposed += other.exposed
        exposedConverted += other.exposedConverted
    }
}
