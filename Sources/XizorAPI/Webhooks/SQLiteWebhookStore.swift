import Storage

struct SQLiteWebhookStore: WebhookStore {
    let db: Database

    func insertEndpoint(_ e: WebhookEndpoint) throws {
        try db.execute(
            """
            INSERT INTO webhook_endpoints (\(WebhookRows.endpointColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                e.appID, e.id, e.url, e.description, e.eventTypes.json.canonicalString, e.secret, e.enabled,
                e.createdAt, e.updatedAt,
                e.health.failingSince, e.health.disabledReason,
            ])
    }

    func endpoints(appID: String) throws -> [WebhookEndpoint] {
        try db.query(
            "SELECT \(WebhookRows.endpointColumns) FROM webhook_endpoints WHERE app_id = ? ORDER BY created_at, id",
            [appID]
        )
        .map(WebhookRows.endpoint)
    }

    func endpoint(appID: String, id: String) throws -> WebhookEndpoint? {
        try db.queryOne(
            "SELECT \(WebhookRows.endpointColumns) FROM webhook_endpoints WHERE app_id = ? AND id = ?", [appID, id]
        )
        .map(WebhookRows.endpoint)
    }

    /// One writer at a time: the plain read is already as good as a lock.
    func endpointForUpdate(appID: String, id: String) throws -> WebhookEndpoint? { try endpoint(appID: appID, id: id) }

    func updateEndpoint(_ e: WebhookEndpoint) throws -> Bool {
        try db.execute(
            """
            UPDATE webhook_endpoints SET url = ?, description = ?, event_types = ?, secret = ?, enabled = ?, updated_at = ?,
                failing_since = ?, disabled_reason = ?
            WHERE app_id = ? AND id = ?
            """,
            [
                e.url, e.description, e.eventTypes.json.canonicalString, e.secret, e.enabled, e.updatedAt,
                e.health.failingSince, e.health.disabledReason, e.appID, e.id,
            ])
        return db.changes == 1
    }

    func deleteEndpoint(appID: String, id: String) throws -> Bool {
        guard try db.queryOne("SELECT 1 FROM webhook_endpoints WHERE app_id = ? AND id = ?", [appID, id]) != nil else {
            return false
        }
        try db.execute("DELETE FROM webhook_deliveries WHERE endpoint_id = ?", [id])
        try db.execute("DELETE FROM webhook_endpoints WHERE app_id = ? AND id = ?", [appID, id])
        return true
    }

    func endpointCount(appID: String) throws -> Int {
        try db.queryOne("SELECT count(*) FROM webhook_endpoints WHERE app_id = ?", [appID])?.get(0) ?? 0
    }

    func insertDelivery(
        id: String, eventID: String, endpointID: String, appID: String, eventType: String, payload: String,
        createdAt: Int64
    ) throws {
        try db.execute(
            """
            INSERT INTO webhook_deliveries (id, event_id, endpoint_id, app_id, event_type, payload, created_at, state, next_attempt_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?)
            """, [id, eventID, endpointID, appID, eventType, payload, createdAt, createdAt])
    }

    func deliveries(endpointID: String, state: WebhookDeliveryState?, before: Int64?, limit: Int) throws
        -> [WebhookDelivery]
    {
        try db.query(
            """
            SELECT \(WebhookRows.deliveryColumns) FROM webhook_deliveries
            WHERE endpoint_id = ?1 AND (?2 IS NULL OR state = ?2) AND (?3 IS NULL OR seq < ?3) ORDER BY seq DESC LIMIT ?4
            """, [endpointID, state?.rawValue, before, Int64(limit)]
        ).map(WebhookRows.delivery)
    }

    func delivery(endpointID: String, id: String) throws -> WebhookDelivery? {
        try db.queryOne(
            "SELECT \(WebhookRows.deliveryColumns) FROM webhook_deliveries WHERE endpoint_id = ? AND id = ?",
            [endpointID, id]
        )
        .map(WebhookRows.delivery)
    }

    func nextDue() throws -> Int64? { try db.queryOne(WebhookRows.nextDueSQL)?.get(0) }

    func claim(now: Int64, leaseUntil: Int64, maxInFlightPerApp: Int) throws -> ClaimedDelivery? {
        // SQLite runs one write transaction at a time: the count of what is in flight cannot change under it.
        guard let row = try db.queryOne(WebhookRows.dueHeadSQL(now: "?1", cap: "?2"), [now, Int64(maxInFlightPerApp)])
        else { return nil }
        let claimed = try WebhookRows.claimed(row)
        try db.execute(
            """
            UPDATE webhook_deliveries SET lease_until = ?, attempts = attempts + 1, last_attempt_at = ?
            WHERE seq = ?3 AND state = 'pending' AND next_attempt_at <= ?4 AND (lease_until IS NULL OR lease_until <= ?4)
            """, [leaseUntil, now, claimed.seq, now])
        return db.changes == 1 ? claimed : nil
    }

    func finish(seq: Int64, outcome: DeliveryOutcome, now: Int64) throws {
        try db.execute(
            """
            UPDATE webhook_deliveries SET state = ?, next_attempt_at = ?, lease_until = NULL, last_status = ?, last_error = ?,
                finished_at = ? WHERE seq = ?
            """,
            [
                outcome.state.rawValue, outcome.nextAttemptAt, outcome.status.map(Int64.init), outcome.error,
                outcome.state == .pending ? nil : now, seq,
            ])
    }

    func postpone(endpointID: String, until: Int64) throws {
        try db.execute(
            """
            UPDATE webhook_deliveries SET next_attempt_at = ?1 WHERE endpoint_id = ?2 AND state = 'pending' AND next_attempt_at < ?1
            """, [until, endpointID])
    }

    func requeue(endpointID: String, id: String, now: Int64) throws -> Bool {
        try db.execute(
            """
            UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = ?, finished_at = NULL, lease_until = NULL
            WHERE endpoint_id = ? AND id = ? AND state = 'failed'
            """, [now, endpointID, id])
        return db.changes == 1
    }

    func pruneFinished(olderThan before: Int64) throws -> Int {
        try db.execute("DELETE FROM webhook_deliveries WHERE finished_at IS NOT NULL AND finished_at < ?", [before])
        return db.changes
    }
}
