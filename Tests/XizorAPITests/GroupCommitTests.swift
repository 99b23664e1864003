import Dispatch
import Foundation
import PaywallFormat
import Synchronization
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// Group commit: concurrent event batches share transactions (fewer commits than batches), every
/// caller is answered with its own outcome, and a caller is told "committed" exactly when its work
/// is in the database.
@Suite struct GroupCommitTests {
    func batch(_ pw: String, _ tag: String, _ count: Int) -> JSONValue {
        [
            "events": .array(
                (0..<count).map { i in
                    [
                        "id": .string("\(tag)-\(i)"), "name": "paywall_open",
                        "timestamp": .number(.integer(Int64(Date().timeIntervalSince1970 * 1000))),
                        "placement": "onboarding", "paywallId": .string(pw), "version": 1,
                        "subscriberId": .string("s\(i)"),
                    ]
                })
        ]
    }

    @Test(arguments: Driver.allCases)
    func concurrentBatchesShareTransactionsAndEachCountsOnce(driver: Driver) throws {
        let test = try TestServices("group", driver: driver)
        defer { test.remove() }
        let s = test.services
        let app = try s.keys.createApp(name: "A").appID
        let pw = try s.paywalls.create(appID: app, from: .template("clean", name: nil)).id
        _ = try s.paywalls.publish(appID: app, id: pw, idempotencyKey: nil)
        let before = s.store.metrics.snapshot().writesCommitted
        let accepted = Atomic<Int>(0)
        let failures = Atomic<Int>(0)
        // Sixteen threads of their own, as the server's handler threads are (concurrentPerform would
        // run only as many at once as there are cores).
        let done = DispatchGroup()
        for thread in 0..<16 {
            done.enter()
            Thread {
                for round in 0..<10 {
                    do {
                        let outcome = try s.events.ingest(appID: app, batch: batch(pw, "t\(thread)-r\(round)", 20))
                        accepted.add(outcome.accepted, ordering: .relaxed)
                    } catch {
                        failures.add(1, ordering: .relaxed)
                    }
                }
                done.leave()
            }.start()
        }
        done.wait()
        #expect(failures.load(ordering: .relaxed) == 0 && accepted.load(ordering: .relaxed) == 16 * 10 * 20)
        let commits = s.store.metrics.snapshot().writesCommitted - before
        #expect(commits < 160, "160 batches from 16 threads took \(commits) transactions: none were shared")
        let funnel = try s.analytics.funnel(appID: app, paywallID: pw, filter: AnalyticsService.Filter())
        #expect(funnel["versions"]?[0]?["impressions"]?.intValue == 3_200)
        // A batch sent again as it was (a retry): every event is a duplicate, counted once.
        let retried = batch(pw, "retried", 20)
        #expect(try s.events.ingest(appID: app, batch: retried).accepted == 20)
        let again = try s.events.ingest(appID: app, batch: retried)
        #expect(again.accepted == 0 && again.duplicates == 20)
    }

    @Test func aCallerIsToldCommittedExactlyWhenItsWorkIsStored() throws {
        let test = try TestServices("group-fail")
        defer { test.remove() }
        let s = test.services
        let app = try s.keys.createApp(name: "A").appID
        let pw = try s.paywalls.create(appID: app, from: .template("clean", name: nil)).id
        let group = GroupCommit(store: s.store)
        struct Planted: Error {}
        let answers = Mutex<[(node: String, committed: Bool)]>([])
        let done = DispatchGroup()
        for i in 0..<24 {
            done.enter()
            Thread {
                defer { done.leave() }
                let node = "node-\(i)"
                do {
                    _ = try group.write { tx -> Bool in
                        _ = try tx.timers.start(appID: app, subscriberID: "s", paywallID: pw, nodeID: node, now: 1)
                        if i % 5 == 0 { throw Planted() }  // rolls back everything in its transaction
                        return true
                    }
                    answers.withLock { $0.append((node, true)) }
                } catch {
                    answers.withLock { $0.append((node, false)) }
                }
            }.start()
        }
        done.wait()
        let all = answers.withLock { $0 }
        #expect(all.count == 24)
        // `start` creates a row only when there was none: `created` false means the caller's row was stored.
        let rows = try s.store.write { tx -> [String: Bool] in
            var created: [String: Bool] = [:]
            for (node, _) in all {
                created[node] = try tx.timers.start(appID: app, subscriberID: "s", paywallID: pw, nodeID: node, now: 2)
                    .created
            }
            return created
        }
        for (node, committed) in all {
            #expect(
                rows[node] == !committed,
                "\(node): told committed \(committed), but its row was \(rows[node] == false ? "there" : "absent") before"
            )
        }
        // Each caller's own outcome: exactly the planted failures failed, whoever shared their transaction.
        #expect(
            Set(all.filter { !$0.committed }.map(\.node)) == Set((0..<24).filter { $0 % 5 == 0 }.map { "node-\($0)" }))
    }
}
