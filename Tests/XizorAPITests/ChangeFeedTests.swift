import Foundation
import Storage
import Synchronization
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// The change feed (issue 15): two sets of services on one database (an SQLite file, or a PostgreSQL
/// database) stand for two processes.
/// What one writes, the other applies when it catches up — keys, publishes, placements — and the
/// table stays bounded however many changes pass.
@Suite struct ChangeFeedTests {
    @Test(arguments: Driver.allCases)
    func anotherProcesssKeysAndPublishesArriveWhenItCatchesUp(driver: Driver) throws {
        let test = try TestServices("feed", driver: driver)
        defer { test.remove() }
        let server = test.services
        let cli = try test.second()
        let created = try cli.keys.createApp(name: "From the CLI")
        #expect(server.keys.authenticate(created.secretKey) == nil, "not applied before catching up")
        try server.changes.catchUp()
        #expect(server.keys.authenticate(created.secretKey) == .secret(appID: created.appID))

        let pw = try cli.paywalls.create(appID: created.appID, from: .template("clean", name: nil)).id
        _ = try cli.paywalls.publish(appID: created.appID, id: pw, idempotencyKey: nil)
        _ = try cli.placements.assign(appID: created.appID, key: "onboarding", paywallID: pw)
        try server.changes.catchUp()
        let resolved = try server.serving.resolve(appID: created.appID, placement: "onboarding", context: [:])
        #expect(resolved.version?.paywallID == pw)
        #expect(server.changes.appliedSequence == cli.changes.appliedSequence)

        let keyID = try cli.keys.listKeys(appID: created.appID).items.first { $0.kind == "secret" }?.id
        try cli.keys.revokeKey(appID: created.appID, keyID: try #require(keyID))
        try server.changes.catchUp()
        #expect(server.keys.authenticate(created.secretKey) == nil, "a revocation elsewhere stops the key here")
    }

    @Test(arguments: Driver.allCases)
    func aWriteIsLiveInItsOwnProcessBeforeItAnswers(driver: Driver) throws {
        let test = try TestServices("feed-own", driver: driver)
        defer { test.remove() }
        let s = test.services
        let app = try s.keys.createApp(name: "A")
        let before = s.changes.appliedSequence
        let pw = try s.paywalls.create(appID: app.appID, from: .template("clean", name: nil)).id
        _ = try s.paywalls.publish(appID: app.appID, id: pw, idempotencyKey: nil)
        _ = try s.placements.assign(appID: app.appID, key: "home", paywallID: pw)
        #expect(try s.serving.resolve(appID: app.appID, placement: "home", context: [:]).version?.version == 1)
        #expect(
            s.changes.appliedSequence == before + 2,
            "publish and assignment are one change each; creating a draft is none")
    }

    @Test(arguments: Driver.allCases)
    func theTableStaysBoundedAndSequencesAreNeverReused(driver: Driver) throws {
        let test = try TestServices("feed-prune", driver: driver)
        defer { test.remove() }
        let store = test.services.store
        try store.write { tx in
            for i in 0..<100_000 {
                try tx.changes.append(appID: "app_x", kind: .placement, entityID: "k\(i % 7)", now: 1_000)
            }
        }
        let latest = try store.read { tx in try tx.changes.latestSequence() }
        let deleted = try store.write { tx in try tx.changes.prune(olderThan: 0, keepingAtMost: 10_000) }
        #expect(deleted == 90_000)
        #expect(try store.read { tx in try tx.changes.count() } == 10_000)
        #expect(try store.read { tx in try tx.changes.oldestSequence() } == latest - 9_999)
        _ = try store.write { tx in try tx.changes.prune(olderThan: 2_000, keepingAtMost: 10_000) }
        #expect(try store.read { tx in try tx.changes.count() } == 0, "pruned by age too")
        let next = try store.write { tx in try tx.changes.append(appID: nil, kind: .key, entityID: nil, now: 3_000) }
        #expect(next == latest + 1, "AUTOINCREMENT: a pruned sequence is never handed out again")
    }

    @Test(arguments: Driver.allCases)
    func aProcessThatFellBehindThePrunedChangesReloadsEverything(driver: Driver) throws {
        let test = try TestServices("feed-gap", driver: driver)
        defer { test.remove() }
        let server = test.services
        let other = try test.second()
        _ = try server.keys.createApp(name: "Seen")  // the server's position is past 0
        let late = try other.keys.createApp(name: "Missed")
        _ = try other.store.write { tx in try tx.changes.prune(olderThan: Int64.max, keepingAtMost: 1_000) }
        let after = try other.keys.createApp(name: "After the prune")
        try server.changes.catchUp()
        #expect(
            server.keys.authenticate(late.secretKey) == .secret(appID: late.appID),
            "the pruned change's app arrives by the full reload")
        #expect(server.keys.authenticate(after.publicKey) == .publicKey(appID: after.appID))
    }

    /// The gap's exact edge (issue 41): a process one change behind whose next change was pruned
    /// unseen reloads, as it does for several; one whose pruned changes it had all applied does not.
    @Test(arguments: Driver.allCases)
    func aProcessBehindByExactlyOnePrunedChangeReloads(driver: Driver) throws {
        let test = try TestServices("feed-gap-one", driver: driver)
        defer { test.remove() }
        let store = test.services.store
        let feed = try ChangeFeed(store: store, clock: .system)
        let seen = Mutex<[ChangeFeed.Effects]>([])
        feed.setApplier { effects in seen.withLock { $0.append(effects) } }
        try feed.catchUp()
        func append(_ entity: String, at: Int64) throws {
            _ = try store.write { tx in
                try tx.changes.append(appID: "app_x", kind: .placement, entityID: entity, now: at)
            }
        }
        func prune(before: Int64) throws {
            _ = try store.write { tx in try tx.changes.prune(olderThan: before, keepingAtMost: 1_000) }
        }
        try append("applied", at: 1)
        try feed.catchUp()
        // Only what this process applied is pruned: the next change is still there, nothing reloads.
        try append("kept", at: 3)
        try prune(before: 2)
        try feed.catchUp()
        #expect(seen.withLock { $0.last?.reloadAll } == false)
        // The next change is pruned unseen, one change and no more: everything reloads.
        try append("pruned unseen", at: 4)
        try append("after", at: 6)
        try prune(before: 5)
        try feed.catchUp()
        #expect(seen.withLock { $0.last?.reloadAll } == true, "one change was lost to the prune")
    }

    /// With many writers (PostgreSQL), a sequence handed out later must not commit first: a reader
    /// that saw it would move past the earlier one for good. While one transaction holds an appended
    /// change open, another's append waits, so what any reader sees is always a prefix.
    @Test func onPostgreSQLChangesCommitInSequenceOrder() throws {
        let test = try TestServices("feed-order", driver: .postgres)
        defer { test.remove() }
        let store = test.services.store
        let start = try store.read { tx in try tx.changes.latestSequence() }
        let appended = DispatchSemaphore(value: 0)
        let firstCommitted = DispatchGroup()
        let done = DispatchGroup()
        firstCommitted.enter()
        // Threads of their own, not Dispatch's global queue: on a 2-core machine its pool may not
        // start the second writer until the first returns, and the test would see the order it
        // checks for whatever the store does (a mutant without the feed's lock survived that way).
        done.enter()
        Thread {
            _ = try? store.write { tx in
                try tx.changes.append(appID: "app_a", kind: .placement, entityID: "first", now: 1)
                appended.signal()
                usleep(600_000)  // held open while the second appends and a reader looks
            }
            firstCommitted.leave()
            done.leave()
        }.start()
        appended.wait()
        done.enter()
        Thread {
            _ = try? store.write { tx in
                try tx.changes.append(appID: "app_a", kind: .placement, entityID: "second", now: 1)
            }
            done.leave()
        }.start()
        var seen: [[String?]] = []
        while firstCommitted.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
            seen.append(try store.read { tx in try tx.changes.after(sequence: start, limit: 10).map(\.entityID) })
        }
        done.wait()
        let final = try store.read { tx in try tx.changes.after(sequence: start, limit: 10).map(\.entityID) }
        #expect(final == ["first", "second"])
        #expect(seen.count > 5, "the reader looked while the first transaction was open")
        for look in seen {
            #expect(
                Array(final.prefix(look.count)) == look,
                "a reader saw \(look): a later change committed before an earlier one")
        }
    }

    /// A publish re-reads its own paywall only: the routing (whose rules a full reload would parse
    /// again, counting an unreadable one) and every other version are kept as they are.
    @Test func aPublishTouchesOnlyItsPaywall() throws {
        let test = try TestServices("feed-incremental")
        defer { test.remove() }
        let s = test.services
        let app = try s.keys.createApp(name: "A").appID
        let ids = try (0..<3).map { _ in try s.paywalls.create(appID: app, from: .template("clean", name: nil)).id }
        for id in ids { _ = try s.paywalls.publish(appID: app, id: id, idempotencyKey: nil) }
        _ = try s.placements.assign(appID: app, key: "home", paywallID: ids[0])
        _ = try s.placements.setRules(
            appID: app, key: "home",
            rules: [["when": ["key": "tier", "op": "eq", "value": "pro"], "paywallId": .string(ids[1])]])
        try s.pool.write { db in
            try db.execute("UPDATE placement_rules SET condition = ? WHERE app_id = ?", [#"{"op": "near"}"#, app])
        }
        let failures = s.activity.dataFailureCount(.storedRule)
        let before = try #require(s.serving.snapshot(appID: app))

        _ = try s.paywalls.publish(appID: app, id: ids[2], idempotencyKey: nil, options: PublishOptions(force: true))
        let after = try #require(s.serving.snapshot(appID: app))
        #expect(after.latestVersions[ids[2]]?.published.version == 2)
        #expect(
            after.latestVersions[ids[0]] === before.latestVersions[ids[0]]
                && after.latestVersions[ids[1]] === before.latestVersions[ids[1]])
        #expect(after.placements["home"]?.rules.first?.unreadable == nil, "the routing was not re-read")
        #expect(s.activity.dataFailureCount(.storedRule) == failures)

        _ = try s.paywalls.archive(appID: app, id: ids[1])
        #expect(s.serving.snapshot(appID: app)?.archivedPaywalls == [ids[1]])
        // A routing change re-reads the routing (and finds the rule that no longer reads).
        _ = try s.placements.assign(appID: app, key: "other", paywallID: ids[0])
        #expect(s.serving.snapshot(appID: app)?.placements["home"]?.rules.first?.unreadable != nil)
        #expect(s.activity.dataFailureCount(.storedRule) == failures + 1)
    }

    @Test func effectsFoldEachAppOnce() {
        let changes = [
            Change(sequence: 1, appID: "a", kind: .paywall, entityID: "p"),
            Change(sequence: 2, appID: "a", kind: .placement, entityID: "k"),
            Change(sequence: 3, appID: "b", kind: .key, entityID: "x"),
            Change(sequence: 4, appID: nil, kind: .key, entityID: nil),
            Change(sequence: 5, appID: "b", kind: .app, entityID: "b"),
        ]
        let effects = ChangeFeed.Effects(changes)
        #expect(effects.serving == ["a": ServingState.Update(routing: true, paywalls: ["p"])])
        #expect(effects.keyApps == ["b"] && effects.adminKeys && !effects.reloadAll)
    }
}
