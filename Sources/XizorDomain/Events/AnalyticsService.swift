import PaywallFormat

/// The funnel per published version of a paywall, so versions can be compared after every
/// publish. Optionally cut by time, placement and context values.
public final class AnalyticsService: Sendable {
    private let gate: AnalyticsGate

    /// Every funnel is read through `gate`: its app's share, the process's bound and a time limit.
    public init(gate: AnalyticsGate) { self.gate = gate }

    public struct Filter: Sendable {
        public var from: Int64?
        public var to: Int64?
        public var placement: String?
        public var context: PresentationContext = [:]
        /// Adds a time series per version: counts per UTC hour or day.
        public var interval: Interval?
        /// Production unless asked (docs/integrations.md, "Sandbox and production").
        public var environment: EnvironmentFilter = .production
        public init() {}

        /// The filter a report answers: `from` moved back and `to` forward to whole UTC hours, the
        /// rollups' finest bucket, so a report is a merge of buckets and never reads events to cut
        /// an hour, whose price would grow with the app's events per hour (docs/analytics.md, "How
        /// a range is read"). Every report answers for this range, and says it.
        public var resolved: Filter {
            var out = self
            out.from = from.map { RollupSpan.hour.start(of: Self.clamped($0)) }
            out.to = to.map { RollupSpan.hour.boundary(atOrAfter: Self.clamped($0)) }
            return out
        }

        /// Times past the end of time (year 146,000,000) are all "no end": no bucket starts there,
        /// and bucket arithmetic stays far from overflow whatever a query says.
        static let endOfTime = Int64.max / 4

        static func clamped(_ time: Int64) -> Int64 { min(max(time, 0), endOfTime) }
    }

    public enum Interval: String, Sendable, CaseIterable {
        case hour, day

        public var milliseconds: Int64 { self == .hour ? 3_600_000 : 86_400_000 }
    }

    /// A series longer than this many buckets is refused (ask for days, or a shorter range).
    static let maxBuckets: Int64 = 10_000

    /// Event names counted per version, as answered.
    static let counted: [(field: String, event: String)] = [
        ("impressions", "paywall_open"), ("closes", "paywall_close"),
        ("purchaseStarted", "purchase_started"), ("purchaseCompleted", "purchase_completed"),
        ("purchaseFailed", "purchase_failed"), ("purchaseCancelled", "purchase_cancelled"),
        ("restores", "restore_completed"),
    ]

    public func funnel(appID: String, paywallID: String, filter asked: Filter) throws -> JSONValue {
        let filter = asked.resolved
        // A double quote cannot be escaped in SQLite's JSON paths; no SDK context key needs one.
        if filter.context.keys.contains(where: { $0.contains("\"") }) {
            throw ServiceError(.badRequest, "invalid_context_key", "A context key cannot contain '\"'.")
        }
        // The whole report — its reads and the arithmetic over them — runs admitted, at the gate's
        // lower priority.
        return try gate.report(appID: appID) { report in
            let (funnel, versions, missingContext, verified) = try report.read { tx in
                guard try tx.paywalls.lifecycle(appID: appID, id: paywallID) != nil else {
                    throw ServiceError.notFound("paywall", paywallID)
                }
                return (
                    try filter.context.isEmpty
                        ? RollupReader.funnel(tx, appID: appID, paywallID: paywallID, filter: filter)
                        : AnalyticsService.scan(tx, appID: appID, paywallID: paywallID, filter: filter),
                    try tx.paywalls.versions(paywallID: paywallID).map(\.version).sorted(),
                    filter.context.isEmpty
                        ? nil
                        : try tx.events.countWithoutContextKeys(appID: appID, paywallID: paywallID, filter: filter),
                    // The stores' verified figures of the subscriptions credited to each version (and
                    // placement, when asked), by cohort day; context cannot cut them.
                    try tx.revenue.figures(
                        appID: appID, scope: .paywall(paywallID, placement: filter.placement),
                        environments: RevenueService.environments(filter.environment),
                        fromDay: filter.from.map { RollupSpan.day.start(of: max(0, $0)) }, toDay: filter.to)
                )
            }
            let (counts, series, revenue) = (funnel.counts, funnel.series, funnel.revenue)
            var perVersion: [Int: [String: FunnelCount]] = [:]
            for count in counts { perVersion[count.version, default: [:]][count.name] = count }
            var bucketed: [Int: [Int64: [String: FunnelCount]]] = [:]
            for count in series ?? [] {
                guard let bucket = count.bucket else { continue }
                bucketed[count.version, default: [:]][bucket, default: [:]][count.name] = count
            }
            let buckets = try filter.interval.map {
                try AnalyticsService.buckets($0, filter: filter, seen: (series ?? []).compactMap(\.bucket))
            }
            var items: [JSONValue] = []
            for version in versions {
                guard case .object(var object) = AnalyticsService.counts(perVersion[version] ?? [:]) else { continue }
                object["version"] = .number(version)
                // Per currency, never summed across currencies; purchases that report no price count in
                // purchaseCompleted but not here.
                object["revenue"] = .array(
                    revenue.filter { $0.version == version }.sorted { $0.currency < $1.currency }.map {
                        [
                            "currency": .string($0.currency), "amount": .number($0.amount),
                            "purchases": .number($0.purchases),
                        ]
                    })
                let figures = verified[String(version)] ?? VerifiedFigures()
                var block = RevenueService.block(figures)
                block["revenuePerSubscriber"] = RevenueService.perSubscriber(
                    figures, subscribers: object["uniqueSubscribers"]?.intValue ?? 0)
                object["verified"] = block
                if let buckets {
                    object["series"] = .array(
                        buckets.map { start in
                            var point = AnalyticsService.counts(bucketed[version]?[start] ?? [:])
                            point["start"] = .number(Int(start))
                            return point
                        })
                }
                items.append(.object(object))
            }
            var answer: JSONValue = [
                "paywallId": .string(paywallID), "versions": .array(items),
                "environment": .string(filter.environment.rawValue),
            ]
            if let interval = filter.interval { answer["interval"] = .string(interval.rawValue) }
            if let from = filter.from { answer["from"] = .number(.integer(from)) }
            if let to = filter.to { answer["to"] = .number(.integer(to)) }
            answer["estimates"] = AnalyticsService.estimates(funnel.estimated)
            // Which figures the app reported and which the stores did (docs/revenue.md).
            answer["sources"] = ["revenue": "client-reported", "verified": "verified"]
            if funnel.notCounted > 0 { answer["eventsNotCounted"] = .number(funnel.notCounted) }
            // A context filter cannot count an event sent without that key; the answer says how many
            // the range and placement held, rather than leaving them out without a word.
            if let missingContext { answer["eventsWithoutContext"] = .number(.integer(missingContext)) }
            return answer
        }
    }

    /// A funnel cut by context values: read from the events themselves (the rollups keep no
    /// context, whose keys are the app's own), under the gate's time limit like every report.
    static func scan(_ tx: any StoreTransaction, appID: String, paywallID: String, filter: Filter) throws
        -> RollupReader.Funnel
    {
        RollupReader.Funnel(
            counts: try tx.events.funnel(appID: appID, paywallID: paywallID, filter: filter),
            series: try filter.interval.map {
                try tx.events.funnelSeries(
                    appID: appID, paywallID: paywallID, filter: filter, bucketMs: $0.milliseconds)
            },
            revenue: try tx.events.revenue(appID: appID, paywallID: paywallID, filter: filter),
            estimated: false, notCounted: 0)
    }

    /// The distinct-subscriber fields, which are estimates once a bucket's sketch passed its exact
    /// size, and the sketch's relative standard error; no fields when every figure is exact.
    static func estimates(_ estimated: Bool) -> JSONValue {
        [
            "fields": .array(estimated ? estimatedFields.map(JSONValue.string) : []),
            "relativeStandardError": estimated ? .number(SubscriberSketch.relativeStandardError) : .null,
        ]
    }

    public static let estimatedFields = ["uniqueSubscribers", "conversions", "conversion"]

    /// The counted fields of one funnel (a version's, or one bucket of its series). `conversion` is
    /// the one definition every answer uses (experiment results' `conversionRate` too): subscribers
    /// who completed a purchase ÷ subscribers who saw the paywall, null when nobody saw it. The
    /// per-event ratio is `purchasesPerImpression`, under its own name.
    static func counts(_ counts: [String: FunnelCount]) -> JSONValue {
        var object: [String: JSONValue] = [:]
        for (field, event) in AnalyticsService.counted { object[field] = .number(counts[event]?.count ?? 0) }
        let subscribers = counts["paywall_open"]?.subscribers ?? 0
        let converted = counts["purchase_completed"]?.subscribers ?? 0
        let impressions = counts["paywall_open"]?.count ?? 0
        let completed = counts["purchase_completed"]?.count ?? 0
        object["uniqueSubscribers"] = .number(subscribers)
        object["conversions"] = .number(converted)
        object["conversion"] = subscribers > 0 ? .number(Double(converted) / Double(subscribers)) : .null
        object["purchasesPerImpression"] = impressions > 0 ? .number(Double(completed) / Double(impressions)) : .null
        return .object(object)
    }

    /// Every bucket start from `from` (or the first bucket with events) to before `to` (or through
    /// the last with events): a dense series, empty buckets included, so a chart needs no gap logic.
    static func buckets(_ interval: Interval, filter: Filter, seen: [Int64]) throws -> [Int64] {
        let size = interval.milliseconds
        func floor(_ t: Int64) -> Int64 { t - ((t % size) + size) % size }
        guard let first = filter.from.map(floor) ?? seen.min(),
            let last = filter.to.map({ floor($0 - 1) }) ?? seen.max(),
            first <= last
        else { return [] }
        let count = (last - first) / size + 1
        guard count <= maxBuckets else {
            throw ServiceError.badField(
                "$.query.interval", "too_many_buckets",
                "That is \(count) \(interval.rawValue)s; a series has at most \(maxBuckets) buckets. Ask for a shorter range or interval=day."
            )
        }
        return (0..<count).map { first + $0 * size }
    }
}
