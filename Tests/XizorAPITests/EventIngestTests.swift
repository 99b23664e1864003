import Foundation
import PaywallFormat
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// Each database writes event rows its own fastest way (SQLite: cached multi-row inserts;
/// PostgreSQL: one `unnest` insert of column arrays, whose text form quotes and escapes every
/// element): whatever the strings hold, the rows read back are the events sent, a retry adds
/// nothing, and batches of every size land whole.
@Suite struct EventIngestTests {
    @Test(arguments: Driver.allCases)
    func everyValueRoundTripsAndARetryAddsNothing(driver: Driver) throws {
        let test = try TestServices("ingest", driver: driver)
        defer { test.remove() }
        let s = test.services
        let app = try s.keys.createApp(name: "Ingest").appID
        let pw = try s.paywalls.create(appID: app, from: .template("clean", name: "P")).id
        let awkward = [
            #"quote " inside"#, #"back\slash"#, "comma, {brace} and }", "NULL", "", "ünïcödé 🎉", #"\""#,
            "tab\tand\nnewline",
        ]
        var events: [StoredEvent] = []
        for (index, text) in awkward.enumerated() {
            events.append(
                StoredEvent(
                    id: "id-\(index)-\(text)", name: "custom_\(index)", occurredAt: 1_800_000_000_000 + Int64(index),
                    placement: text.isEmpty ? nil : text, paywallID: index % 2 == 0 ? pw : nil,
                    version: index % 2 == 0 ? 1 : nil, subscriberID: text,
                    context:
                        #"{"k":"\#(text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\t", with: "\\t").replacingOccurrences(of: "\n", with: "\\n"))"}"#,
                    properties: index % 3 == 0 ? nil : #"{"price":1.5,"currency":"EUR"}"#,
                    experimentID: index % 2 == 0 ? nil : "exp", variant: index % 2 == 0 ? nil : text,
                    environment: index % 4 == 0 ? .sandbox : .production))
        }
        // Sizes around the SQLite chunk shapes, and one batch with a repeated id.
        var sent = 0
        for size in [1, 3, 64, 65, 130] {
            let batch = (0..<size).map { i in
                var e = events[i % events.count]
                e = StoredEvent(
                    id: "\(size)-\(i)-\(e.id)", name: e.name, occurredAt: e.occurredAt, placement: e.placement,
                    paywallID: e.paywallID, version: e.version, subscriberID: e.subscriberID, context: e.context,
                    properties: e.properties, experimentID: e.experimentID, variant: e.variant,
                    environment: e.environment)
                return e
            }
            let inserted = try s.store.write { tx in try tx.events.insert(appID: app, batch + [batch[0]], receivedAt: 7)
            }
            #expect(inserted == size, "a batch of \(size) plus one repeat")
            #expect(try s.store.write { tx in try tx.events.insert(appID: app, batch, receivedAt: 8) } == 0)
            sent += size
        }
        let read = try s.store.read { tx in
            try tx.events.export(appID: app, from: nil, to: nil, environment: .all, after: nil, limit: 1_000)
        }
        #expect(read.count == sent)
        let byID = Dictionary(uniqueKeysWithValues: read.map { ($0.event.id, $0) })
        for size in [1, 3, 64, 65, 130] {
            for i in 0..<size {
                let e = events[i % events.count]
                let got = try #require(byID["\(size)-\(i)-\(e.id)"])
                #expect(got.receivedAt == 7)
                #expect(got.event.placement == e.placement && got.event.subscriberID == e.subscriberID)
                #expect(got.event.variant == e.variant && got.event.environment == e.environment)
                let context = try JSONParser().parse(got.event.context ?? "")
                #expect(context["k"]?.stringValue == e.subscriberID, "\(e.id)")
                #expect((got.event.properties == nil) == (e.properties == nil))
            }
        }
    }
}
