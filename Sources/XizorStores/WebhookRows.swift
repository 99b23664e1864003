import PaywallFormat
import Storage
import XizorDomain

/// How both SQL stores read webhook rows: the same columns and decoding, each dialect's statements.
enum WebhookRows {
    static let endpointColumns =
        "app_id, id, url, description, event_types, secret, enabled, created_at, updated_at, failing_since, disabled_reason"

    static func endpoint(_ row: Row) throws -> WebhookEndpoint {
        let typesText: String = try row.get(4)
        return WebhookEndpoint(
            appID: try row.get(0), id: try row.get(1), url: try row.get(2), description: try row.get(3),
            eventTypes: try subscription(stored: typesText), secret: try row.get(5), enabled: try row.get(6),
            createdAt: try row.get(7), updatedAt: try row.get(8),
            health: try WebhookEndpointHealth.stored(failingSince: try row.get(9), disabledReason: try row.get(10)))
    }

    /// The stored `event_types` array; a type this binary does not know is a row it cannot trust.
    static func subscription(stored: String) throws -> WebhookSubscription {
        let parsed: JSONValue
        do { parsed = try JSONParser().parse(Array(stored.utf8)) } catch {
            throw StoreInconsistency(detail: "a webhook endpoint's event_types is not JSON (\(error)): \(stored)")
        }
        let items = parsed.arrayValue ?? []
        let names = items.compactMap(\.stringValue)
        guard parsed.arrayValue != nil, names.count == items.count else {
            throw StoreInconsistency(detail: "a webhook endpoint's event_types is not an array of strings: \(stored)")
        }
        if names == ["*"] { return .all }
        var types = Set<WebhookEventType>()
        for name in names {
            guard let type = WebhookEventType(rawValue: name) else {
                throw StoreInconsistency(detail: "a webhook endpoint subscribes to the unknown event type '\(name)'")
            }
            types.insert(type)
        }
        return .only(types)
    }

    static let deliveryColumns = """
        seq, id, event_id, endpoint_id, event_type, payload, created_at, state, attempts, next_attempt_at, last_attempt_at, \
        last_status, last_error, finished_at
        """

    static func delivery(_ row: Row) throws -> WebhookDelivery {
        let stateName: String = try row.get(7)
        guard let state = WebhookDeliveryState(rawValue: stateName) else {
            throw StoreInconsistency(detail: "a webhook delivery is in the unknown state '\(stateName)'")
        }
        let attempts: Int64 = try row.get(8)
        let status: Int64? = try row.get(11)
        return WebhookDelivery(
            seq: try row.get(0), id: try row.get(1), eventID: try row.get(2), endpointID: try row.get(3),
            eventType: try row.get(4), payload: try row.get(5), createdAt: try row.get(6), state: state,
            attempts: Int(attempts), nextAttemptAt: try row.get(9), lastAttemptAt: try row.get(10),
            lastStatus: status.map(Int.init), lastError: try row.get(12), finishedAt: try row.get(13))
    }

    /// The due head of each enabled endpoint's queue (`claim`), shared out per app: apps with
    /// `cap` deliveries in flight are left out, and the app with the fewest in flight goes first,
    /// then the oldest due.
    static func dueHead(now: Int64, cap: Int64) -> SQL {
        """
        WITH busy AS (SELECT l.app_id, count(*) AS n FROM webhook_deliveries l
                      WHERE l.lease_until IS NOT NULL AND l.lease_until > \(now) AND l.state = 'pending' GROUP BY l.app_id)
        SELECT d.seq, d.id, d.event_id, d.event_type, d.payload, d.created_at, d.attempts, e.url, e.secret, d.endpoint_id, d.app_id
        FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id LEFT JOIN busy b ON b.app_id = d.app_id
        WHERE d.state = 'pending' AND e.enabled AND d.next_attempt_at <= \(now) AND (d.lease_until IS NULL OR d.lease_until <= \(now))
          AND d.seq = (SELECT min(p.seq) FROM webhook_deliveries p WHERE p.endpoint_id = d.endpoint_id AND p.state = 'pending')
          AND coalesce(b.n, 0) < \(cap)
        ORDER BY coalesce(b.n, 0), d.next_attempt_at, d.seq LIMIT 1
        """
    }

    /// The row of `dueHead`, its attempt counted.
    static func claimed(_ row: Row) throws -> ClaimedDelivery {
        let attempts: Int64 = try row.get(6)
        return ClaimedDelivery(
            seq: try row.get(0), id: try row.get(1), endpointID: try row.get(9), appID: try row.get(10),
            eventID: try row.get(2), eventType: try row.get(3),
            payload: try row.get(4), createdAt: try row.get(5), attempts: Int(attempts) + 1,
            url: try row.get(7), secret: try row.get(8))
    }

    /// The earliest attempt time among queue heads of enabled endpoints (a lease counts as a later
    /// time): only heads, or a due row waiting behind a retried head would be "due" forever.
    static let nextDue: SQL = """
        SELECT min(CASE WHEN d.lease_until IS NOT NULL AND d.lease_until > d.next_attempt_at THEN d.lease_until ELSE d.next_attempt_at END)
        FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
        WHERE d.state = 'pending' AND e.enabled
          AND d.seq = (SELECT min(p.seq) FROM webhook_deliveries p WHERE p.endpoint_id = d.endpoint_id AND p.state = 'pending')
        """
}
