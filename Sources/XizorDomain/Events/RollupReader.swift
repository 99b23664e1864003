/// Funnels and experiment results read from the rollups (docs/analytics.md, "Rollups"), so their
/// price is the buckets of the range, not the events behind it. A range is first moved out to whole
/// UTC hours (`AnalyticsService.Filter.resolved`), then cut into:
///
/// - whole UTC days, read from the day buckets (not for an hourly series);
/// - the whole hours left at either end, read from the hour buckets;
/// - and the events the rollup job has not folded yet, added from its queue (at most
///   `pendingLimit`; past that they are left out and the answer says how many).
///
/// The three are disjoint, so each event is counted once.
enum RollupReader {
    /// The most queued events a read adds; more means the job is behind (a backfill), and reading
    /// them would cost what the rollups exist to avoid.
    static let pendingLimit = 20_000

    struct Funnel {
        var counts: [FunnelCount]
        var series: [FunnelCount]?
        var revenue: [RevenueSum]
        /// Whether a distinct-subscriber figure is an estimate (a sketch past its exact size).
        var estimated: Bool
        /// Events received but left out: the job's queue held more than `pendingLimit`.
        var notCounted: Int
    }

    /// Cells read per query: the most sketches (16 KiB each when dense) a read holds at once.
    static let pageSize = 1_000

    /// `filter`'s range must be resolved to whole hours (`AnalyticsService.Filter.resolved`), the
    /// range the answer says it counted.
    static func funnel(
        _ tx: any StoreTransaction, appID: String, paywallID: String, filter: AnalyticsService.Filter,
        pageSize: Int = pageSize
    ) throws -> Funnel {
        precondition(pageSize > 0, "a page holds at least one cell")
        let scope = RollupScope(paywallID: paywallID, placement: filter.placement, environment: filter.environment)
        let plan = RangePlan(from: filter.from, to: filter.to, hourly: filter.interval == .hour)
        // The queued events first: few (`pendingLimit`), kept in memory until their buckets are
        // reached.
        var pending = EventRollup()
        let waiting = try tx.rollups.queuedCount(appID: appID, atMost: pendingLimit + 1)
        var notCounted = 0
        if let rolled = plan.rolled, waiting > 0 {
            if waiting > pendingLimit {
                notCounted = waiting
            } else {
                for event in try tx.rollups.queued(
                    appID: appID, scope: scope, from: rolled.lowerBound, to: rolled.upperBound)
                {
                    pending.addToFunnel(event, spans: [.hour])
                }
            }
        }
        var tally = Tally(interval: filter.interval?.milliseconds)
        for (key, cell) in pending.funnel { tally.add(key, cell) }
        // Then the stored buckets, a page at a time in bucket order: a series bucket is counted (its
        // sketch estimated and dropped) as soon as the pages have moved past it.
        for (span, range) in plan.buckets {
            var after: FunnelCellKey?
            while true {
                let page = try tx.rollups.funnelCells(
                    appID: appID, scope: scope, span: span, from: range.lowerBound, to: range.upperBound,
                    after: after, limit: pageSize)
                for (key, cell) in page { tally.add(key, cell) }
                guard page.count == pageSize, let last = page.last?.0 else { break }
                tally.count(before: last.bucket)
                after = last
            }
        }
        tally.count(before: .max)

        var revenueCells = pending.revenue.map { ($0.key, $0.value) }
        for (span, range) in plan.buckets {
            revenueCells += try tx.rollups.revenueCells(
                appID: appID, scope: scope, span: span, from: range.lowerBound, to: range.upperBound)
        }
        var revenue: [RevenueKeyInTally: RevenueCell] = [:]
        for (key, cell) in revenueCells {
            revenue[RevenueKeyInTally(version: key.version, currency: key.currency), default: RevenueCell()].merge(cell)
        }
        return Funnel(
            counts: tally.totals, series: filter.interval == nil ? nil : tally.series,
            revenue: revenue.map { key, cell in
                RevenueSum(
                    version: key.version, currency: key.currency, amount: cell.amount, purchases: Int(cell.purchases))
            },
            estimated: tally.estimated, notCounted: notCounted)
    }

    /// A funnel's counts as cells arrive: totals per (version, name) keep one merged sketch each;
    /// series buckets keep theirs only until `count(before:)` turns them into counts.
    struct Tally {
        let interval: Int64?
        private var total: [FunnelKeyInTally: FunnelCell] = [:]
        private var open: [FunnelKeyInTally: FunnelCell] = [:]
        private(set) var series: [FunnelCount] = []
        private var seriesEstimated = false

        /// Whether any figure answered is an estimate (a sketch past its exact size).
        var estimated: Bool { seriesEstimated || total.values.contains { !($0.subscribers?.isExact ?? true) } }

        init(interval: Int64?) { self.interval = interval }

        mutating func add(_ key: FunnelCellKey, _ cell: FunnelCell) {
            total[FunnelKeyInTally(version: key.version, name: key.name, bucket: nil), default: FunnelCell()].merge(
                cell)
            if let interval {
                let bucket = key.bucket - key.bucket % interval
                open[FunnelKeyInTally(version: key.version, name: key.name, bucket: bucket), default: FunnelCell()]
                    .merge(
                        cell)
            }
        }

        /// Counts every series bucket that starts before the one holding `time` (no later cell can
        /// reach them: cells arrive in bucket order).
        mutating func count(before time: Int64) {
            guard let interval else { return }
            let limit = time == .max ? time : time - time % interval
            for (key, cell) in open where (key.bucket ?? 0) < limit {
                series.append(Self.count(key, cell))
                if !(cell.subscribers?.isExact ?? true) { seriesEstimated = true }
                open[key] = nil
            }
        }

        var totals: [FunnelCount] {
            total.map { key, cell in Self.count(key, cell) }
        }

        private static func count(_ key: FunnelKeyInTally, _ cell: FunnelCell) -> FunnelCount {
            FunnelCount(
                version: key.version, name: key.name, count: Int(cell.events),
                subscribers: cell.subscribers?.count ?? 0, bucket: key.bucket)
        }
    }

    struct Experiment {
        var counts: [String: VariantCounts]
        var revenue: [String: [RevenueSum]]
        var notCounted: Int
    }

    /// An experiment's counts per variant: exact (each arm's counts move once per subscriber, see
    /// `EventRollup.armCounts`), summed over the environments `environment` keeps.
    static func experiment(
        _ tx: any StoreTransaction, appID: String, experimentID: String, environment: EnvironmentFilter
    ) throws -> Experiment {
        var arms = try tx.rollups.armCounts(appID: appID, experimentID: experimentID, environment: environment)
        var armRevenue = try tx.rollups.armRevenue(appID: appID, experimentID: experimentID, environment: environment)
        let waiting = try tx.rollups.queuedCount(appID: appID, atMost: pendingLimit + 1)
        var notCounted = 0
        if waiting > pendingLimit {
            notCounted = waiting
        } else if waiting > 0 {
            var pending = EventRollup()
            for event in try tx.rollups.queued(appID: appID, experimentID: experimentID, environment: environment) {
                pending.addToExperiments(event)
            }
            let stored = try tx.rollups.progress(appID: appID, of: Array(pending.progress.keys))
            for (arm, change) in pending.armCounts(over: stored) { arms[arm, default: VariantCounts()].add(change) }
            for (arm, currencies) in pending.experimentRevenue {
                for (currency, cell) in currencies {
                    armRevenue[arm, default: [:]][currency, default: RevenueCell()].merge(cell)
                }
            }
        }
        var counts: [String: VariantCounts] = [:]
        for (arm, armCounts) in arms { counts[arm.variant, default: VariantCounts()].add(armCounts) }
        var perCurrency: [String: [String: RevenueCell]] = [:]
        for (arm, currencies) in armRevenue {
            for (currency, cell) in currencies {
                perCurrency[arm.variant, default: [:]][currency, default: RevenueCell()].merge(cell)
            }
        }
        let revenue = perCurrency.mapValues { currencies in
            currencies.sorted { $0.key < $1.key }.map {
                RevenueSum(version: 0, currency: $0.key, amount: $0.value.amount, purchases: Int($0.value.purchases))
            }
        }
        return Experiment(counts: counts, revenue: revenue, notCounted: notCounted)
    }

}

private struct FunnelKeyInTally: Hashable {
    let version: Int
    let name: String
    let bucket: Int64?
}

private struct RevenueKeyInTally: Hashable {
    let version: Int
    let currency: String
}

/// How a range [from, to), moved out to whole UTC hours, is read: bucket ranges per span, and the
/// whole hours they cover (where queued events are added). Pure, so its cuts are tested alone
/// (`RangePlanTests`).
struct RangePlan: Equatable {
    /// Bucket-start ranges to read from each span's rollups.
    var buckets: [(RollupSpan, Range<Int64>)] = []
    /// The whole hours the buckets cover (nil: none).
    var rolled: Range<Int64>?

    static func == (a: RangePlan, b: RangePlan) -> Bool {
        a.buckets.map(\.0) == b.buckets.map(\.0) && a.buckets.map(\.1) == b.buckets.map(\.1) && a.rolled == b.rolled
    }

    /// `from` and `to` as `AnalyticsService.Filter.resolved` leaves them: on whole hours.
    init(from: Int64?, to: Int64?, hourly: Bool) {
        let hour = RollupSpan.hour
        let day = RollupSpan.day
        let firstHour = from ?? 0
        let lastHour = to ?? hour.boundary(atOrAfter: AnalyticsService.Filter.endOfTime)
        precondition(
            firstHour >= 0 && hour.start(of: firstHour) == firstHour && hour.start(of: lastHour) == lastHour,
            "a range is resolved to whole hours before it is planned")
        guard firstHour < lastHour else { return }
        rolled = firstHour..<lastHour
        let firstDay = day.boundary(atOrAfter: firstHour)
        let lastDay = day.start(of: lastHour)
        guard !hourly, firstDay < lastDay else {
            buckets = [(.hour, firstHour..<lastHour)]
            return
        }
        if firstHour < firstDay { buckets.append((.hour, firstHour..<firstDay)) }
        buckets.append((.day, firstDay..<lastDay))
        if lastDay < lastHour { buckets.append((.hour, lastDay..<lastHour)) }
    }
}
