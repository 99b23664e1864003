import Storage
import XizorDomain

/// How the experiment store reads experiment and variant rows.
enum ExperimentRows {
    static let columns = "id, name, status, holdout_weight, allocation, created_at, started_at, stopped_at, winner"
    static let variantColumns = "name, paywall_id, weight"

    static func variant(_ row: Row) throws -> Experiment.Variant {
        Experiment.Variant(name: try row.get(0), paywallID: try row.get(1), weight: try row.get(2))
    }

    /// A status this binary has no name for is an error, not a default.
    static func experiment(_ row: Row, variants: [Experiment.Variant]) throws -> StoredExperiment {
        let statusName: String = try row.get(2)
        guard let status = Experiment.Status(rawValue: statusName) else {
            throw UnknownStoredValue(column: "experiments.status", value: statusName)
        }
        return StoredExperiment(
            id: try row.get(0), name: try row.get(1), status: status, variants: variants, holdoutWeight: try row.get(3),
            allocation: try row.get(4), createdAt: try row.get(5), startedAt: try row.get(6),
            stoppedAt: try row.get(7), winner: try row.get(8))
    }
}
