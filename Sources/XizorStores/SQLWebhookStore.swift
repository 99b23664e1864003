import Storage
import XizorDomain

struct SQLWebhookStore: WebhookStore {
    let db: any SQLConnection

    func insertEndpoint(_ e: WebhookEndpoint) throws {
        try db.run(
            """
            INSERT INTO webhook_endpoints (\(raw: WebhookRows.endpointColumns)) VALUES (\(e.appID), \(e.id), \(e.url), \(e.description), \(e.eventTypes.json.canonicalString), \(e.secret), \(e.enabled), \(e.createdAt), \(e.updatedAt), \(e.health.failingSince), \(e.health.disabledReason))
            """)
    }

    func endpoints(appID: String) throws -> [WebhookEndpoint] {
        try db.rows(
            "SELECT \(raw: WebhookRows.endpointColumns) FROM webhook_endpoints WHERE app_id = \(appID) ORDER BY created_at, id"
        )
        .map(WebhookRows.endpoint)
    }

    func endpoint(appID: String, id: String) throws -> WebhookEndpoint? {
        try db.row(
            "SELECT \(raw: WebhookRows.endpointColumns) FROM webhook_endpoints WHERE app_id = \(appID) AND id = \(id)"
        )
        .map(WebhookRows.endpoint)
    }

    /// Locked until commit on PostgreSQL (`FOR NO KEY UPDATE`: the row is rewritten, never its key,
    /// so inserts of deliveries that reference it need not wait); SQLite's one writer at a time makes
    /// the plain read as good as a lock.
    func endpointForUpdate(appID: String, id: String) throws -> WebhookEndpoint? {
        try db.row(
            """
            SELECT \(raw: WebhookRows.endpointColumns) FROM webhook_endpoints WHERE app_id = \(appID) AND id = \(id)\(raw: db.dialect.lockRowsForUpdate)
            """
        ).map(WebhookRows.endpoint)
    }

    func updateEndpoint(_ e: WebhookEndpoint) throws -> Bool {
        try db.run(
            """
            UPDATE webhook_endpoints SET url = \(e.url), description = \(e.description), event_types = \(e.eventTypes.json.canonicalString), secret = \(e.secret), enabled = \(e.enabled), updated_at = \(e.updatedAt),
                failing_since = \(e.health.failingSince), disabled_reason = \(e.health.disabledReason)
            WHERE app_id = \(e.appID) AND id = \(e.id)
            """)
        return db.changes == 1
    }

    func deleteEndpoint(appID: String, id: String) throws -> Bool {
        guard try db.row("SELECT 1 FROM webhook_endpoints WHERE app_id = \(appID) AND id = \(id)") != nil else {
            return false
        }
        try db.run("DELETE FROM webhook_deliveries WHERE endpoint_id = \(id)")
        try db.run("DELETE FROM webhook_endpoints WHERE app_id = \(appID) AND id = \(id)")
        return true
    }

    func endpointCount(appID: String) throws -> Int {
        try db.row("SELECT count(*) FROM webhook_endpoints WHERE app_id = \(appID)")?.get(0) ?? 0
    }

    func insertDelivery(
        id: String, eventID: String, endpointID: String, appID: String, eventType: String, payload: String,
        createdAt: Int64
    ) throws {
        if db.dialect == .postgres {
            // The change feed's lock, held to commit: outbox rows commit in `seq` order, so a sender
            // never sends a later row of an endpoint before an earlier one is visible. (SQLite's
            // one writer commits in order already.)
            try db.run("SELECT pg_advisory_xact_lock(\(SQLChangeStore.lockKey))")
        }
        try db.run(
            """
            INSERT INTO webhook_deliveries (id, event_id, endpoint_id, app_id, event_type, payload, created_at, state, next_attempt_at)
            VALUES (\(id), \(eventID), \(endpointID), \(appID), \(eventType), \(payload), \(createdAt), 'pending', \(createdAt))
            """)
    }

    func deliveries(endpointID: String, state: WebhookDeliveryState?, before: Int64?, limit: Int) throws
        -> [WebhookDelivery]
    {
        var query: SQL =
            "SELECT \(raw: WebhookRows.deliveryColumns) FROM webhook_deliveries WHERE endpoint_id = \(endpointID)"
        if let state { query += " AND state = \(state.rawValue)" }
        if let before { query += " AND seq < \(before)" }
        return try db.rows(query + " ORDER BY seq DESC LIMIT \(Int64(limit))").map(WebhookRows.delivery)
    }

    func delivery(endpointID: String, id: String) throws -> WebhookDelivery? {
        try db.row(
            "SELECT \(raw: WebhookRows.deliveryColumns) FROM webhook_deliveries WHERE endpoint_id = \(endpointID) AND id = \(id)"
        )
        .map(WebhookRows.delivery)
    }

    func nextDue() throws -> Int64? { try db.row(WebhookRows.nextDue)?.get(0) }

    /// Serialises claims between processes on PostgreSQL, so two senders cannot both see an app below
    /// its cap and both lease one more (the count is read after the lock, in a snapshot of its own).
    static let claimLockKey: Int64 = 0x7765_6268_6963_6C61

    func claim(now: Int64, leaseUntil: Int64, maxInFlightPerApp: Int) throws -> ClaimedDelivery? {
        // SQLite runs one write transaction at a time: the count of what is in flight cannot change under it.
        if db.dialect == .postgres { try db.run("SELECT pg_advisory_xact_lock(\(Self.claimLockKey))") }
        guard let row = try db.row(WebhookRows.dueHead(now: now, cap: Int64(maxInFlightPerApp))) else { return nil }
        let claimed = try WebhookRows.claimed(row)
        // On PostgreSQL the read above saw a snapshot of its own; since then another sender may have
        // leased the row, or leased, sent and finished it (its lease cleared again). The UPDATE sees
        // the row as committed now and takes it only if it is still pending, due and unleased: else
        // nothing is claimed (and nothing sent twice).
        try db.run(
            """
            UPDATE webhook_deliveries SET lease_until = \(leaseUntil), attempts = attempts + 1, last_attempt_at = \(now)
            WHERE seq = \(claimed.seq) AND state = 'pending' AND next_attempt_at <= \(now) AND (lease_until IS NULL OR lease_until <= \(now))
            """)
        return db.changes == 1 ? claimed : nil
    }

    func finish(seq: Int64, outcome: DeliveryOutcome, now: Int64) throws {
        try db.run(
            """
            UPDATE webhook_deliveries SET state = \(outcome.state.rawValue), next_attempt_at = \(outcome.nextAttemptAt), lease_until = NULL, last_status = \(outcome.status.map(Int64.init)), last_error = \(outcome.error),
                finished_at = \(outcome.state == .pending ? nil : now) WHERE seq = \(seq)
            """)
    }

    func postpone(endpointID: String, until: Int64) throws {
        try db.run(
            """
            UPDATE webhook_deliveries SET next_attempt_at = \(until) WHERE endpoint_id = \(endpointID) AND state = 'pending' AND next_attempt_at < \(until)
            """)
    }

    func requeue(endpointID: String, id: String, now: Int64) throws -> Bool {
        try db.run(
            """
            UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = \(now), finished_at = NULL, lease_until = NULL
            WHERE endpoint_id = \(endpointID) AND id = \(id) AND state = 'failed'
            """)
        return db.changes == 1
    }

    func pruneFinished(olderThan before: Int64) throws -> Int {
        try db.run("DELETE FROM webhook_deliveries WHERE finished_at IS NOT NULL AND finished_at < \(before)")
        return db.changes
    }
}
