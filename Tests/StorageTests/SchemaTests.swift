import Digest
import Foundation
import Testing

@testable import Storage

/// The 0001 schema enforces its invariants itself, whatever the service above does.
@Suite struct SchemaTests {
    let directory: TemporaryDirectory
    let pool: DatabasePool

    init() throws {
        directory = try TemporaryDirectory()
        pool = try migratedPool(in: directory)
        try pool.write { db in
            for app in ["app_a", "app_b"] {
                try db.execute("INSERT INTO apps (id, name, created_at) VALUES (?, ?, ?)", [app, app, 1000])
            }
            try db.execute(
                """
                INSERT INTO paywalls (id, app_id, name, draft, created_at, updated_at)
                VALUES ('pw_a', 'app_a', 'A', '{}', 1000, 1000), ('pw_b', 'app_b', 'B', '{}', 1000, 1000)
                """)
            try publish(db, paywall: "pw_a", version: 1)
        }
    }

    func publish(
        _ db: Database, paywall: String, version: Int, idempotencyKey: String? = nil, rolledBackFrom: Int? = nil
    ) throws {
        try db.execute(
            """
            INSERT INTO paywall_versions (paywall_id, version, document, schema_version, content_hash, published_at,
                                          idempotency_key, rolled_back_from)
            VALUES (?, ?, '{"root":{}}', 1, 'hash', 2000, ?, ?)
            """, [paywall, version, idempotencyKey, rolledBackFrom])
    }

    func writeError(_ body: (Database) throws -> Void) -> SQLiteError? {
        #expect(throws: SQLiteError.self) { try pool.write(body) }
    }

    @Test func publishedVersionsAreImmutable() throws {
        let update = writeError { db in try db.execute("UPDATE paywall_versions SET document = '{}'") }
        #expect(update?.kind == .trigger)
        #expect(update?.message.contains("immutable") == true)
        let delete = writeError { db in try db.execute("DELETE FROM paywall_versions") }
        #expect(delete?.kind == .trigger)
        let count: Int = try pool.read { db in try db.queryOne("SELECT count(*) FROM paywall_versions")?.get(0) ?? 0 }
        #expect(count == 1)
    }

    @Test func versionsAreSequentialAndIdempotencyKeysUnique() throws {
        let gap = writeError { db in try publish(db, paywall: "pw_a", version: 3) }
        #expect(gap?.kind == .trigger)
        let duplicate = writeError { db in try publish(db, paywall: "pw_a", version: 1) }
        #expect(duplicate?.kind == .trigger || duplicate?.kind == .unique)
        try pool.write { db in try publish(db, paywall: "pw_a", version: 2, idempotencyKey: "k1") }
        let retried = writeError { db in try publish(db, paywall: "pw_a", version: 3, idempotencyKey: "k1") }
        #expect(retried?.kind == .unique)
        // A rollback must name an existing earlier version.
        let badRollback = writeError { db in try publish(db, paywall: "pw_a", version: 3, rolledBackFrom: 7) }
        #expect(badRollback?.kind == .check)
        try pool.write { db in try publish(db, paywall: "pw_a", version: 3, rolledBackFrom: 1) }
        // Another paywall may use the same idempotency key.
        try pool.write { db in try publish(db, paywall: "pw_b", version: 1, idempotencyKey: "k1") }
    }

    @Test func placementsCannotPointAtAnotherAppsPaywall() throws {
        let crossApp = writeError { db in
            try db.execute(
                "INSERT INTO placements (app_id, key, paywall_id, created_at, updated_at) VALUES ('app_a', 'onboarding', 'pw_b', 1, 1)"
            )
        }
        #expect(crossApp?.kind == .foreignKey)
        try pool.write { db in
            try db.execute(
                "INSERT INTO placements (app_id, key, paywall_id, created_at, updated_at) VALUES ('app_a', 'onboarding', 'pw_a', 1, 1)"
            )
        }
        let twice = writeError { db in
            try db.execute(
                "INSERT INTO placements (app_id, key, paywall_id, created_at, updated_at) VALUES ('app_a', 'onboarding', 'pw_a', 1, 1)"
            )
        }
        #expect(twice?.kind == .unique)
    }

    @Test func rulesAreOrderedAndGoWithTheirPlacement() throws {
        try pool.write { db in
            try db.execute(
                "INSERT INTO placements (app_id, key, paywall_id, created_at, updated_at) VALUES ('app_a', 'upsell', 'pw_a', 1, 1)"
            )
            for position in 0..<3 {
                try db.execute(
                    """
                    INSERT INTO placement_rules (app_id, placement_key, position, condition, paywall_id)
                    VALUES ('app_a', 'upsell', ?, '{"key":"country","op":"eq","value":"DE"}', 'pw_a')
                    """, [position])
            }
        }
        let badWindow = writeError { db in
            try db.execute(
                """
                INSERT INTO placement_rules (app_id, placement_key, position, condition, paywall_id, active_from, active_until)
                VALUES ('app_a', 'upsell', 9, '{}', 'pw_a', 100, 50)
                """)
        }
        #expect(badWindow?.kind == .check)
        let noPlacement = writeError { db in
            try db.execute(
                "INSERT INTO placement_rules (app_id, placement_key, position, condition, paywall_id) VALUES ('app_a', 'nope', 0, '{}', 'pw_a')"
            )
        }
        #expect(noPlacement?.kind == .foreignKey)
        try pool.write { db in try db.execute("DELETE FROM placements WHERE app_id = 'app_a' AND key = 'upsell'") }
        let left: Int = try pool.read { db in try db.queryOne("SELECT count(*) FROM placement_rules")?.get(0) ?? -1 }
        #expect(left == 0)
    }

    @Test func eventsAreIdempotentByID() throws {
        let insert = """
            INSERT INTO events (app_id, id, name, occurred_at, received_at, placement, paywall_id, version, subscriber_id, context)
            VALUES (?, ?, 'paywall_open', 1, 2, 'onboarding', 'pw_a', 1, 'sub', '{"country":"DE"}')
            ON CONFLICT (app_id, id) DO NOTHING
            """
        for _ in 0..<2 {  // a retried batch
            try pool.write { db in for id in ["e1", "e2"] { try db.execute(insert, ["app_a", id]) } }
        }
        let count: Int = try pool.read { db in try db.queryOne("SELECT count(*) FROM events")?.get(0) ?? -1 }
        #expect(count == 2)
        let badContext = writeError { db in
            try db.execute(
                "INSERT INTO events (app_id, id, name, occurred_at, received_at, context) VALUES ('app_a', 'e3', 'x', 1, 2, '[1]')"
            )
        }
        #expect(badContext?.kind == .check)
        let unknownPaywall = writeError { db in
            try db.execute(
                "INSERT INTO events (app_id, id, name, occurred_at, received_at, paywall_id) VALUES ('app_a', 'e4', 'x', 1, 2, 'pw_b')"
            )
        }
        #expect(unknownPaywall?.kind == .foreignKey)
    }

    @Test func timerStartsFirstWriteWins() throws {
        let start = """
            INSERT INTO timer_starts (app_id, subscriber_id, paywall_id, node_id, started_at) VALUES ('app_a', 's', 'pw_a', 'n', ?)
            ON CONFLICT DO NOTHING
            """
        try pool.write { db in try db.execute(start, [100]) }
        try pool.write { db in try db.execute(start, [200]) }
        let startedAt: Int = try pool.read { db in try db.queryOne("SELECT started_at FROM timer_starts")?.get(0) ?? -1
        }
        #expect(startedAt == 100)
    }

    @Test func keysAndDraftsHaveTheirShape() throws {
        let hash = SHA256.hash(Array("sk_test".utf8))
        try pool.write { db in
            try db.execute(
                "INSERT INTO api_keys (id, app_id, kind, prefix, hash, created_at) VALUES ('k1', 'app_a', 'secret', 'sk_te', ?, 1)",
                [hash])
        }
        let sameHash = writeError { db in
            try db.execute(
                "INSERT INTO api_keys (id, app_id, kind, prefix, hash, created_at) VALUES ('k2', 'app_a', 'public', 'pk_te', ?, 1)",
                [hash])
        }
        #expect(sameHash?.kind == .unique)
        let adminWithApp = writeError { db in
            try db.execute(
                "INSERT INTO api_keys (id, app_id, kind, prefix, hash, created_at) VALUES ('k3', 'app_a', 'admin', 'ad', ?, 1)",
                [SHA256.hash(Array("x".utf8))])
        }
        #expect(adminWithApp?.kind == .check)
        let badKind = writeError { db in
            try db.execute(
                "INSERT INTO api_keys (id, app_id, kind, prefix, hash, created_at) VALUES ('k4', 'app_a', 'root', 'r', ?, 1)",
                [SHA256.hash(Array("y".utf8))])
        }
        #expect(badKind?.kind == .check)
        let noName = writeError { db in
            try db.execute("INSERT INTO apps (id, name, created_at) VALUES ('app_c', NULL, 1)")
        }
        #expect(noName?.kind == .notNull)
        let wrongType = writeError { db in
            try db.execute("INSERT INTO apps (id, name, created_at) VALUES ('app_c', 'C', 'soon')")
        }
        #expect(wrongType?.kind == .otherConstraint)  // STRICT datatype
        let arrayDraft = writeError { db in try db.execute("UPDATE paywalls SET draft = '[]' WHERE id = 'pw_a'") }
        #expect(arrayDraft?.kind == .check)
        // Optimistic concurrency on the draft: a stale revision changes nothing.
        let saved = try pool.write { db -> Int in
            try db.execute(
                "UPDATE paywalls SET draft = '{\"a\":1}', draft_revision = draft_revision + 1 WHERE id = 'pw_a' AND draft_revision = 1"
            )
            let first = db.changes
            try db.execute(
                "UPDATE paywalls SET draft = '{\"a\":2}', draft_revision = draft_revision + 1 WHERE id = 'pw_a' AND draft_revision = 1"
            )
            return first * 10 + db.changes
        }
        #expect(saved == 10)
    }

    @Test func paginationUsesTheIndex() throws {
        let plan: [String] = try pool.read { db in
            try db.query(
                "EXPLAIN QUERY PLAN SELECT id FROM paywalls WHERE app_id = ? AND (created_at, id) > (?, ?) ORDER BY created_at, id LIMIT 50",
                ["app_a", 0, ""]
            ).map { try $0.get("detail") }
        }
        #expect(plan.contains { $0.contains("paywalls_page") })
        #expect(!plan.contains { $0.contains("TEMP B-TREE") })
    }
}
