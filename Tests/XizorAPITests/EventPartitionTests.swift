import Foundation
import PostgresStorage
import Storage
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// PostgreSQL keeps events in monthly partitions (postgres/0018): the retention job prepares the
/// months events may arrive in (moving their rows out of the default partition), drops a month
/// whole only once it ended before every app's cutoff, and deletes in chunks what apps keeping
/// events for less time are due — never an event that is not.
@Suite struct EventPartitionTests {
    static let day: Int64 = 86_400_000

    /// The first millisecond of a UTC month.
    static func month(_ year: Int, _ month: Int) -> Int64 {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let date = calendar.date(from: DateComponents(year: year, month: month, day: 1)) ?? .distantPast
        return Int64(date.timeIntervalSince1970 * 1000)
    }

    static let now = month(2027, 3) + 14 * day + 43_200_123  // 2027-03-15T12:00:00.123Z

    @Test func retentionDropsWholeMonthsOnlyOnceEveryAppIsDoneWithThem() throws {
        let test = try TestServices("partitions", driver: .postgres, clock: Clock { Self.now })
        defer { test.remove() }
        let s = test.services
        let short = try s.keys.createApp(name: "Thirty days").appID
        let long = try s.keys.createApp(name: "Sixty days").appID
        _ = try s.keys.setEventRetention(appID: short, days: 30)
        _ = try s.keys.setEventRetention(appID: long, days: 60)
        var paywalls: [String: String] = [:]
        for app in [short, long] {
            paywalls[app] = try s.paywalls.create(appID: app, from: .template("clean", name: "P")).id
            _ = try s.paywalls.publish(appID: app, id: paywalls[app]!, idempotencyKey: nil)
        }
        // Two old months get partitions now; every later event lands in the default partition
        // until the job prepares its month.
        #expect(
            try s.store.write { tx in
                try tx.events.preparePartitions(from: Self.month(2026, 11), to: Self.month(2026, 12))
            } == 2)

        // Each app: events on both sides of both cutoffs' hours, in every month from 2026-11 to
        // now, and one in 2025-06 (a month that never gets a partition).
        let cutoffHour: [String: Int64] = [
            short: hourStart(Self.now - 30 * Self.day), long: hourStart(Self.now - 60 * Self.day),
        ]
        var times: [Int64] = [Self.month(2025, 6) + 5 * Self.day]
        for (year, month) in [(2026, 11), (2026, 12), (2027, 1), (2027, 2), (2027, 3)] {
            times += [Self.month(year, month), Self.month(year, month) + 9 * Self.day + 1]
        }
        for hour in cutoffHour.values { times += [hour - 1, hour, hour + 1] }
        times += [Self.now - 1]
        var stream: [String: [StoredEvent]] = [:]
        for app in [short, long] {
            stream[app] = times.enumerated().map { index, time in
                StoredEvent(
                    id: "\(app)-\(index)", name: "paywall_open", occurredAt: time, placement: "home",
                    paywallID: paywalls[app], version: 1, subscriberID: "s\(index)", context: nil, properties: nil,
                    experimentID: nil, variant: nil)
            }
            _ = try s.store.write { tx in try tx.events.insert(appID: app, stream[app]!, receivedAt: 1) }
        }
        try s.rollups.foldAll()

        let pass = try s.events.pruneExpired()
        // The ingest window's months and the next (2027-02 … 2027-04; the window is 30 days) are
        // prepared, their rows moved out of the default partition; 2026-11 and 2026-12 ended before
        // both cutoffs (the long app's is in 2027-01): dropped whole.
        #expect(pass.partitionsCreated == 3)
        #expect(pass.partitionsDropped == ["events_2026_11", "events_2026_12"])
        let link = try PGConnection(url: test.postgresURL ?? "")
        defer { link.close() }
        #expect(try partitions(link) == ["events_2027_02", "events_2027_03", "events_2027_04", "events_other"])
        // Left in the default partition: the long app's January events after its cutoff (2025-06's
        // and the rest of January's were due, and deleted in chunks).
        #expect(try count(link, "SELECT count(*) FROM events_other") == 2)

        for app in [short, long] {
            let left = Set(
                try s.store.read { tx in
                    try tx.events.export(appID: app, from: nil, to: nil, environment: .all, after: nil, limit: 1_000)
                }
                .map(\.event.id))
            let kept = stream[app]!.filter { $0.occurredAt >= cutoffHour[app]! }.map(\.id)
            #expect(left == Set(kept), "\(app): every due event gone, every other kept")
        }
        // Nothing more is due, nothing more to prepare.
        let again = try s.events.pruneExpired()
        #expect(again.deleted == 0 && again.partitionsCreated == 0 && again.partitionsDropped.isEmpty)
    }

    @Test func aRetriedEventIsStoredOnceAndAnIdAtAnotherTimeIsAnotherEvent() throws {
        let test = try TestServices("partition-keys", driver: .postgres, clock: Clock { Self.now })
        defer { test.remove() }
        let s = test.services
        let app = try s.keys.createApp(name: "Keys").appID
        func event(_ time: Int64) -> StoredEvent {
            StoredEvent(
                id: "same", name: "app_open", occurredAt: time, placement: nil, paywallID: nil, version: nil,
                subscriberID: "s", context: nil, properties: nil, experimentID: nil, variant: nil)
        }
        let first = try s.store.write { tx in
            try tx.events.insert(appID: app, [event(Self.now - 5), event(Self.now - 5)], receivedAt: 1)
        }
        let again = try s.store.write { tx in
            try tx.events.insert(appID: app, [event(Self.now - 5), event(Self.now - 4)], receivedAt: 1)
        }
        #expect(first == 1 && again == 1)
        let exported = try s.store.read { tx in
            try tx.events.export(appID: app, from: nil, to: nil, environment: .all, after: nil, limit: 1)
        }
        // An export pages by (id, timestamp): the second page starts after the first row, not after its id.
        let rest = try s.store.read { tx in
            try tx.events.export(
                appID: app, from: nil, to: nil, environment: .all,
                after: exported.last.map { EventKey(id: $0.event.id, occurredAt: $0.event.occurredAt) }, limit: 10)
        }
        #expect(exported.map(\.event.occurredAt) == [Self.now - 5] && rest.map(\.event.occurredAt) == [Self.now - 4])
    }

    private func hourStart(_ time: Int64) -> Int64 { time - time % 3_600_000 }

    private func partitions(_ link: PGConnection) throws -> [String] {
        try link.query(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass ORDER BY 1"
        ).map { try $0.get(0) }
    }

    private func count(_ link: PGConnection, _ sql: String) throws -> Int {
        let value: Int64? = try link.queryOne(sql)?.get(0)
        return Int(value ?? -1)
    }
}
