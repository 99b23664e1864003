import Storage
import XizorDomain

struct SQLExperimentStore: ExperimentStore {
    let db: any SQLConnection

    func insert(_ experiment: StoredExperiment, appID: String, now: Int64) throws {
        try db.run(
            """
            INSERT INTO experiments (id, app_id, name, status, holdout_weight, allocation, created_at, updated_at) VALUES (\(experiment.id), \(appID), \(experiment.name), \(experiment.status.rawValue), \(experiment.holdoutWeight), \(experiment.allocation), \(now), \(now))
            """)
        for (position, variant) in experiment.variants.enumerated() {
            try db.run(
                """
                INSERT INTO experiment_variants (experiment_id, position, app_id, name, paywall_id, weight) VALUES (\(experiment.id), \(position), \(appID), \(variant.name), \(variant.paywallID), \(variant.weight))
                """)
        }
    }

    func experiment(appID: String, id: String) throws -> StoredExperiment? {
        try read("WHERE id = \(id) AND app_id = \(appID)").first
    }

    func experiments(appID: String) throws -> [StoredExperiment] { try read("WHERE app_id = \(appID)") }

    func running(appID: String) throws -> [StoredExperiment] {
        try read("WHERE app_id = \(appID) AND status = 'running'")
    }

    private func read(_ filter: SQL) throws -> [StoredExperiment] {
        try db.rows("SELECT \(raw: ExperimentRows.columns) FROM experiments \(filter) ORDER BY created_at, id")
            .map { row in
                let variants = try db.rows(
                    "SELECT \(raw: ExperimentRows.variantColumns) FROM experiment_variants WHERE experiment_id = \(try row.get(0, as: String.self)) ORDER BY position"
                ).map(ExperimentRows.variant)
                return try ExperimentRows.experiment(row, variants: variants)
            }
    }

    func setWeights(id: String, weights: [Int], holdoutWeight: Int, allocation: [UInt8], now: Int64) throws {
        try db.run(
            "UPDATE experiments SET holdout_weight = \(holdoutWeight), allocation = \(allocation), updated_at = \(now) WHERE id = \(id)"
        )
        for (position, weight) in weights.enumerated() {
            try db.run(
                "UPDATE experiment_variants SET weight = \(weight) WHERE experiment_id = \(id) AND position = \(position)"
            )
        }
    }

    func setStatus(id: String, _ status: Experiment.Status, winner: Int?, now: Int64) throws {
        switch status {
        case .draft:
            try db.run("UPDATE experiments SET status = 'draft', updated_at = \(now) WHERE id = \(id)")
        case .running:
            try db.run(
                "UPDATE experiments SET status = 'running', started_at = \(now), updated_at = \(now) WHERE id = \(id)")
        case .stopped:
            try db.run(
                """
                UPDATE experiments SET status = 'stopped', stopped_at = coalesce(stopped_at, \(now)), winner = coalesce(\(winner), winner), updated_at = \(now)
                WHERE id = \(id)
                """)
        }
    }
}
