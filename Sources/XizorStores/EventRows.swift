import Storage
import XizorDomain

/// The columns of both dialects' export query, in `ExportedEvent.init(row:)`'s order (the
/// PostgreSQL store reads the JSON columns as text).
enum EventRows {
    static func exportColumns(json: (String) -> String) -> String {
        "id, name, occurred_at, placement, paywall_id, version, subscriber_id, \(json("context")), \(json("properties")), experiment_id, variant, received_at, environment"
    }
}

/// The row decoding both SQL stores of events share.
extension ExportedEvent {
    /// From a row of both dialects' export query: id, name, occurred_at, placement, paywall_id,
    /// version, subscriber_id, context, properties, experiment_id, variant, received_at, environment.
    init(row: Row) throws {
        let version: Int64? = try row.get(5)
        var event = StoredEvent(
            id: try row.get(0), name: try row.get(1), occurredAt: try row.get(2), placement: try row.get(3),
            paywallID: try row.get(4), version: version.map { Int($0) }, subscriberID: try row.get(6),
            context: try row.get(7), properties: try row.get(8), experimentID: try row.get(9), variant: try row.get(10))
        let receivedAt: Int64 = try row.get(11)
        let environment: String = try row.get(12)
        guard let known = DataEnvironment(rawValue: environment) else {
            throw StoreInconsistency(detail: "event '\(event.id)' has the unknown environment '\(environment)'")
        }
        event.environment = known
        self.init(event: event, receivedAt: receivedAt)
    }
}
