import PostgresStorage
import Storage

struct PostgresWebhookStore: WebhookStore {
    let db: PGConnection

    func insertEndpoint(_ e: WebhookEndpoint) throws {
        try db.execute(
            """
            INSERT INTO webhook_endpoints (\(WebhookRows.endpointColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
            """,
            [
                e.appID, e.id, e.url, e.description, e.eventTypes.json.canonicalString, e.secret, e.enabled,
                e.createdAt, e.updatedAt,
                e.health.failingSince, e.health.disabledReason,
            ])
    }

    func endpoints(appID: String) throws -> [WebhookEndpoint] {
        try db.query(
            "SELECT \(WebhookRows.endpointColumns) FROM webhook_endpoints WHERE app_id = $1 ORDER BY created_at, id",
            [appID]
        )
        .map(WebhookRows.endpoint)
    }

    func endpoint(appID: String, id: String) throws -> WebhookEndpoint? {
        try db.queryOne(
            "SELECT \(WebhookRows.endpointColumns) FROM webhook_endpoints WHERE app_id = $1 AND id = $2", [appID, id]
        )
        .map(WebhookRows.endpoint)
    }

    /// `FOR NO KEY UPDATE`: the row is rewritten, never its key, so inserts of deliveries that
    /// reference it need not wait.
    func endpointForUpdate(appID: String, id: String) throws -> WebhookEndpoint? {
        try db.queryOne(
            "SELECT \(WebhookRows.endpointColumns) FROM webhook_endpoints WHERE app_id = $1 AND id = $2 FOR NO KEY UPDATE",
            [appID, id]
        ).map(WebhookRows.endpoint)
    }

    func updateEndpoint(_ e: WebhookEndpoint) throws -> Bool {
        try db.execute(
            """
            UPDATE webhook_endpoints SET url = $1, description = $2, event_types = $3, secret = $4, enabled = $5, updated_at = $6,
                failing_since = $7, disabled_reason = $8
            WHERE app_id = $9 AND id = $10
            """,
            [
                e.url, e.description, e.eventTypes.json.canonicalString, e.secret, e.enabled, e.updatedAt,
                e.health.failingSince, e.health.disabledReason, e.appID, e.id,
            ])
        return db.changes == 1
    }

    func deleteEndpoint(appID: String, id: String) throws -> Bool {
        guard try db.queryOne("SELECT 1 FROM webhook_endpoints WHERE app_id = $1 AND id = $2", [appID, id]) != nil
        else { return false }
        try db.execute("DELETE FROM webhook_deliveries WHERE endpoint_id = $1", [id])
        try db.execute("DELETE FROM webhook_endpoints WHERE app_id = $1 AND id = $2", [appID, id])
        return true
    }

    func endpointCount(appID: String) throws -> Int {
        try db.queryOne("SELECT count(*) FROM webhook_endpoints WHERE app_id = $1", [appID])?.get(0) ?? 0
    }

    func insertDelivery(
        id: String, eventID: String, endpointID: String, appID: String, eventType: String, payload: String,
        createdAt: Int64
    ) throws {
        // The change feed's lock, held to commit: outbox rows commit in `seq` order, so a sender
        // never sends a later row of an endpoint before an earlier one is visible.
        try db.execute("SELECT pg_advisory_xact_lock($1)", [PostgresChangeStore.lockKey])
        try db.execute(
            """
            INSERT INTO webhook_deliveries (id, event_id, endpoint_id, app_id, event_type, payload, created_at, state, next_attempt_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8)
            """, [id, eventID, endpointID, appID, eventType, payload, createdAt, createdAt])
    }

    func deliveries(endpointID: String, state: WebhookDeliveryState?, before: Int64?, limit: Int) throws
        -> [WebhookDelivery]
    {
        try db.query(
            """
            SELECT \(WebhookRows.deliveryColumns) FROM webhook_deliveries
            WHERE endpoint_id = $1 AND ($2::text IS NULL OR state = $2) AND ($3::bigint IS NULL OR seq < $3) ORDER BY seq DESC LIMIT $4
            """, [endpointID, state?.rawValue, before, Int64(limit)]
        ).map(WebhookRows.delivery)
    }

    func delivery(endpointID: String, id: String) throws -> WebhookDelivery? {
        try db.queryOne(
            "SELECT \(WebhookRows.deliveryColumns) FROM webhook_deliveries WHERE endpoint_id = $1 AND id = $2",
            [endpointID, id]
        )
        .map(WebhookRows.delivery)
    }

    func nextDue() throws -> Int64? { try db.queryOne(WebhookRows.nextDueSQL)?.get(0) }

    /// Serialises claims between processes, so two senders cannot both see an app below its cap
    /// and both lease one more (the count is read after the lock, in a snapshot of its own).
    static let claimLockKey: Int64 = 0x7765_6268_6963_6C61

    func claim(now: Int64, leaseUntil: Int64, maxInFlightPerApp: Int) throws -> ClaimedDelivery? {
        try db.execute("SELECT pg_advisory_xact_lock($1)", [Self.claimLockKey])
        guard
            let row = try db.queryOne(
                WebhookRows.dueHeadSQL(now: "$1::bigint", cap: "$2::bigint"),
                [now, Int64(maxInFlightPerApp)])
        else { return nil }
        let claimed = try WebhookRows.claimed(row)
        // The read above saw a snapshot of its own; since then another sender may have leased the
        // row, or leased, sent and finished it (its lease cleared again). The UPDATE sees the row as
        // committed now and takes it only if it is still pending, due and unleased: else nothing is
        // claimed (and nothing sent twice).
        try db.execute(
            """
            UPDATE webhook_deliveries SET lease_until = $1, attempts = attempts + 1, last_attempt_at = $2
            WHERE seq = $3 AND state = 'pending' AND next_attempt_at <= $4 AND (lease_until IS NULL OR lease_until <= $4)
            """, [leaseUntil, now, claimed.seq, now])
        return db.changes == 1 ? claimed : nil
    }

    func finish(seq: Int64, outcome: DeliveryOutcome, now: Int64) throws {
        try db.execute(
            """
            UPDATE webhook_deliveries SET state = $1, next_attempt_at = $2, lease_until = NULL, last_status = $3, last_error = $4,
                finished_at = $5 WHERE seq = $6
            """,
            [
                outcome.state.rawValue, outcome.nextAttemptAt, outcome.status.map(Int64.init), outcome.error,
                outcome.state == .pending ? nil : now, seq,
            ])
    }

    func postpone(endpointID: String, until: Int64) throws {
        try db.execute(
            """
            UPDATE webhook_deliveries SET next_attempt_at = $1 WHERE endpoint_id = $2 AND state = 'pending' AND next_attempt_at < $1
            """, [until, endpointID])
    }

    func requeue(endpointID: String, id: String, now: Int64) throws -> Bool {
        try db.execute(
            """
            UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = $1, finished_at = NULL, lease_until = NULL
            WHERE endpoint_id = $2 AND id = $3 AND state = 'failed'
            """, [now, endpointID, id])
        return db.changes == 1
    }

    func pruneFinished(olderThan before: Int64) throws -> Int {
        try db.execute("DELETE FROM webhook_deliveries WHERE finished_at IS NOT NULL AND finished_at < $1", [before])
        return db.changes
    }
}
