import PostgresStorage
import Storage

struct PostgresExperimentStore: ExperimentStore {
    let db: PGConnection

    func insert(_ experiment: StoredExperiment, appID: String, now: Int64) throws {
        try db.execute(
            """
            INSERT INTO experiments (id, app_id, name, status, holdout_weight, allocation, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            """,
            [
                experiment.id, appID, experiment.name, experiment.status.rawValue, experiment.holdoutWeight,
                experiment.allocation, now, now,
            ])
        for (position, variant) in experiment.variants.enumerated() {
            try db.execute(
                """
                INSERT INTO experiment_variants (experiment_id, position, app_id, name, paywall_id, weight) VALUES ($1, $2, $3, $4, $5, $6)
                """, [experiment.id, position, appID, variant.name, variant.paywallID, variant.weight])
        }
    }

    func experiment(appID: String, id: String) throws -> StoredExperiment? {
        try read("WHERE id = $1 AND app_id = $2", [id, appID]).first
    }

    func experiments(appID: String) throws -> [StoredExperiment] { try read("WHERE app_id = $1", [appID]) }

    func running(appID: String) throws -> [StoredExperiment] {
        try read("WHERE app_id = $1 AND status = 'running'", [appID])
    }

    private func read(_ filter: String, _ bindings: [any SQLBindable]) throws -> [StoredExperiment] {
        try db.query("SELECT \(ExperimentRows.columns) FROM experiments \(filter) ORDER BY created_at, id", bindings)
            .map { row in
                let variants = try db.query(
                    "SELECT \(ExperimentRows.variantColumns) FROM experiment_variants WHERE experiment_id = $1 ORDER BY position",
                    [try row.get(0, as: String.self)]
                ).map(ExperimentRows.variant)
                return try ExperimentRows.experiment(row, variants: variants)
            }
    }

    func setWeights(id: String, weights: [Int], holdoutWeight: Int, allocation: [UInt8], now: Int64) throws {
        try db.execute(
            "UPDATE experiments SET holdout_weight = $1, allocation = $2, updated_at = $3 WHERE id = $4",
            [holdoutWeight, allocation, now, id])
        for (position, weight) in weights.enumerated() {
            try db.execute(
                "UPDATE experiment_variants SET weight = $1 WHERE experiment_id = $2 AND position = $3",
                [weight, id, position])
        }
    }

    func setStatus(id: String, _ status: Experiment.Status, winner: Int?, now: Int64) throws {
        switch status {
        case .draft:
            try db.execute("UPDATE experiments SET status = 'draft', updated_at = $1 WHERE id = $2", [now, id])
        case .running:
            try db.execute(
                "UPDATE experiments SET status = 'running', started_at = $1, updated_at = $2 WHERE id = $3",
                [now, now, id])
        case .stopped:
            try db.execute(
                """
                UPDATE experiments SET status = 'stopped', stopped_at = coalesce(stopped_at, $1), winner = coalesce($2, winner), updated_at = $3
                WHERE id = $4
                """, [now, winner, now, id])
        }
    }
}
