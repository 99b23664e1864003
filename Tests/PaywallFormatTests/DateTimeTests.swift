import Foundation
import Testing

@testable import PaywallFormat

/// The byte-level RFC 3339 reader agrees with Foundation's ISO 8601 formatter on valid input
/// (a seeded sweep over four centuries, zones and fractions) and refuses what is not a date.
@Test func dateTimeMatchesFoundationAcrossCenturiesZonesAndFractions() {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next(_ bound: Int) -> Int {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((seed >> 33) % UInt64(bound))
    }
    for _ in 0..<2000 {
        let year = 1900 + next(400)
        let month = 1 + next(12)
        let day = 1 + next(DateTime.daysIn(month: month, year: year))
        let zone =
            next(3) == 0
            ? "Z" : String(format: "%@%02d:%02d", next(2) == 0 ? "+" : "-", next(15), [0, 30, 45][next(3)])
        let text =
            String(
                format: "%04d-%02d-%02dT%02d:%02d:%02d.%03d", year, month, day, next(24), next(60), next(60), next(1000)
            ) + zone
        let expected = formatter.date(from: text).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
        #expect(expected != nil, "\(text)")
        #expect(DateTime.millisecondsSince1970(text) == expected, "\(text)")
    }
}

@Test(arguments: [
    ("1970-01-01T00:00:00Z", Int64(0)),
    ("2026-11-30T12:00:00Z", Int64(1_796_040_000_000)),
    ("2026-11-30T13:00:00+01:00", Int64(1_796_040_000_000)),
    ("2024-02-29T00:00:00.5Z", Int64(1_709_164_800_500)),
    ("2024-02-29T00:00:00.0004Z", Int64(1_709_164_800_000)),
    ("2024-02-29T00:00:00.9996Z", Int64(1_709_164_801_000)),
    ("1969-12-31T23:59:59Z", Int64(-1000)),
])
func dateTimeKnownValues(_ text: String, _ millis: Int64) {
    #expect(DateTime.millisecondsSince1970(text) == millis)
}

@Test(arguments: [
    "2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-04-31T00:00:00Z", "2026-01-01T24:00:00Z",
    "2026-01-01T00:60:00Z", "2026-01-01T00:00:60Z", "2026-01-01T00:00:00+24:00", "2026-01-01 00:00:00Z",
    "2026-01-01T00:00:00", "2026-01-01T00:00:00.Z", "", "yesterday",
])
func dateTimeRefusesWhatIsNotADate(_ text: String) {
    #expect(DateTime.millisecondsSince1970(text) == nil)
}
