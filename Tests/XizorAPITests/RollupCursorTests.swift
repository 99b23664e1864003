import Foundation
import PostgresStorage
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// The rollup job reads the queue after the last entry it took (`EventRollupService.foldAll`), so a
/// PostgreSQL writer that took a queue position before others and committed after them must still
/// be folded: its entry sits behind the cursor, and the next run starts from the queue's start.
@Suite struct RollupCursorTests {
    @Test func anEntryCommittedBehindTheCursorIsFoldedByTheNextRun() throws {
        let test = try TestServices("rollup-cursor", driver: .postgres)
        defer { test.remove() }
        let s = test.services
        let app = try s.keys.createApp(name: "Cursor").appID
        let paywall = try s.paywalls.create(appID: app, from: .template("clean", name: "P")).id
        _ = try s.paywalls.publish(appID: app, id: paywall, idempotencyKey: nil)
        let hour = RollupRecountTests.t0 + 5 * RollupRecountTests.hour
        func event(_ id: String) -> StoredEvent {
            StoredEvent(
                id: id, name: "paywall_close", occurredAt: hour + 1_000, placement: "home", paywallID: paywall,
                version: 1, subscriberID: "s-\(id)", context: nil, properties: nil, experimentID: nil, variant: nil)
        }

        // A writer takes the queue's next position and holds its transaction open.
        let late = try PGConnection(url: test.postgresURL ?? "")
        defer { late.close() }
        try late.executeScript(
            """
            BEGIN;
            INSERT INTO events (app_id, id, name, occurred_at, received_at, placement, paywall_id, version, subscriber_id)
            VALUES ('\(app)', 'late', 'paywall_close', \(hour + 1_000), 1, 'home', '\(paywall)', 1, 's-late');
            """)
        // Ten more commit after it; folded in passes of three, the cursor moves past its position.
        _ = try s.store.write { tx in try tx.events.insert(appID: app, (0..<10).map { event("e\($0)") }, receivedAt: 1)
        }
        let job = EventRollupService(store: s.store, batch: 3)
        try job.foldAll()
        #expect(try closes(s, app: app, paywall: paywall, at: hour) == 10)

        try late.executeScript("COMMIT")
        try job.foldAll()
        #expect(try closes(s, app: app, paywall: paywall, at: hour) == 11)
        #expect(try s.store.read { tx in try tx.rollups.queuedCount(appID: app, atMost: 10) } == 0)
    }

    /// The hour's folded `paywall_close` count (read from the rollups, not the queue).
    private func closes(_ s: XizorServices, app: String, paywall: String, at hour: Int64) throws -> Int64 {
        try s.store.read { tx in
            try tx.rollups.funnelCells(
                appID: app, scope: RollupScope(paywallID: paywall, placement: nil, environment: .all),
                span: .hour, from: hour, to: hour + RollupSpan.hour.milliseconds, after: nil, limit: 100
            )
            .filter { $0.0.name == "paywall_close" }.reduce(0) { $0 + $1.1.events }
        }
    }
}
