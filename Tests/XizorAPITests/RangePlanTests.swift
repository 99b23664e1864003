import Testing

@testable import XizorDomain

/// How a report's range becomes bucket reads (docs/analytics.md, "How a range is read"): the asked
/// range moved out to whole UTC hours, then whole days from the day buckets and the hours at either
/// end from the hour buckets — pieces that never overlap and leave nothing out.
@Suite struct RangePlanTests {
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000
    /// A UTC midnight.
    static let midnight: Int64 = 1_795_996_800_000

    func plan(_ from: Int64?, _ to: Int64?, hourly: Bool = false) -> RangePlan {
        var filter = AnalyticsService.Filter()
        filter.from = from
        filter.to = to
        let resolved = filter.resolved
        return RangePlan(from: resolved.from, to: resolved.to, hourly: hourly)
    }

    @Test func aRangeIsMovedOutToWholeHoursThenCutIntoDaysAndHours() {
        let (h, d, m) = (Self.hour, Self.day, Self.midnight)
        // 05:20 on day 0 to 06:40 on day 2: hours 05–24, day 1, hours 00–07 of day 2.
        let cut = plan(m + 5 * h + 20 * 60_000, m + 2 * d + 6 * h + 40 * 60_000)
        #expect(cut.rolled == (m + 5 * h)..<(m + 2 * d + 7 * h))
        #expect(cut.buckets.map(\.0) == [.hour, .day, .hour])
        #expect(
            cut.buckets.map(\.1) == [(m + 5 * h)..<(m + d), (m + d)..<(m + 2 * d), (m + 2 * d)..<(m + 2 * d + 7 * h)])
        // An hourly series reads hours only.
        let hourly = plan(m + 5 * h + 1, m + 2 * d, hourly: true)
        #expect(hourly.buckets.map(\.0) == [.hour] && hourly.buckets.map(\.1) == [(m + 5 * h)..<(m + 2 * d)])
        // Whole days and whole hours are kept as asked.
        #expect(plan(m, m + d).buckets.map(\.1) == [m..<(m + d)] && plan(m, m + d).buckets.map(\.0) == [.day])
        #expect(plan(m + h, m + 2 * h).rolled == (m + h)..<(m + 2 * h))
        // A range within one hour is that hour; an empty or reversed one reads nothing.
        #expect(plan(m + 10, m + 20).buckets.map(\.1) == [m..<(m + h)])
        #expect(plan(m + h, m + h) == RangePlan(from: m + h, to: m + h, hourly: false))
        #expect(plan(m + h, m + h).buckets.isEmpty && plan(m + 2 * h, m + h).rolled == nil)
        // No end, a negative start and a time past the end of time stay far from overflow.
        let open = plan(-5, nil)
        #expect(open.rolled?.lowerBound == 0 && (open.rolled?.upperBound ?? 0) > Int64.max / 5)
        #expect(plan(m, .max).rolled?.upperBound == plan(m, nil).rolled?.upperBound)
    }
}
