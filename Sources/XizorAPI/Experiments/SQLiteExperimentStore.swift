import Storage

struct SQLiteExperimentStore: ExperimentStore {
    let db: Database

    func insert(_ experiment: StoredExperiment, appID: String, now: Int64) throws {
        try db.execute(
            """
            INSERT INTO experiments (id, app_id, name, status, holdout_weight, allocation, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                experiment.id, appID, experiment.name, experiment.status.rawValue, experiment.holdoutWeight,
                experiment.allocation, now, now,
            ])
        for (position, variant) in experiment.variants.enumerated() {
            try db.execute(
                """
                INSERT INTO experiment_variants (experiment_id, position, app_id, name, paywall_id, weight) VALUES (?, ?, ?, ?, ?, ?)
                """, [experiment.id, position, appID, variant.name, variant.paywallID, variant.weight])
        }
    }

    func experiment(appID: String, id: String) throws -> StoredExperiment? {
        try read("WHERE id = ? AND app_id = ?", [id, appID]).first
    }

    func experiments(appID: String) throws -> [StoredExperiment] { try read("WHERE app_id = ?", [appID]) }

    func running(appID: String) throws -> [StoredExperiment] {
        try read("WHERE app_id = ? AND status = 'running'", [appID])
    }

    private func read(_ filter: String, _ bindings: [any SQLBindable]) throws -> [StoredExperiment] {
        try db.query("SELECT \(ExperimentRows.columns) FROM experiments \(filter) ORDER BY created_at, id", bindings)
            .map { row in
                let variants = try db.query(
                    "SELECT \(ExperimentRows.variantColumns) FROM experiment_variants WHERE experiment_id = ? ORDER BY position",
                    [try row.get(0, as: String.self)]
                ).map(ExperimentRows.variant)
                return try ExperimentRows.experiment(row, variants: variants)
            }
    }

    func setWeights(id: String, weights: [Int], holdoutWeight: Int, allocation: [UInt8], now: Int64) throws {
        try db.execute(
            "UPDATE experiments SET holdout_weight = ?, allocation = ?, updated_at = ? WHERE id = ?",
            [holdoutWeight, allocation, now, id])
        for (position, weight) in weights.enumerated() {
            try db.execute(
                "UPDATE experiment_variants SET weight = ? WHERE experiment_id = ? AND position = ?",
                [weight, id, position])
        }
    }

    func setStatus(id: String, _ status: Experiment.Status, winner: Int?, now: Int64) throws {
        switch status {
        case .draft:
            try db.execute("UPDATE experiments SET status = 'draft', updated_at = ? WHERE id = ?", [now, id])
        case .running:
            try db.execute(
                "UPDATE experiments SET status = 'running', started_at = ?, updated_at = ? WHERE id = ?",
                [now, now, id])
        case .stopped:
            try db.execute(
                """
                UPDATE experiments SET status = 'stopped', stopped_at = coalesce(stopped_at, ?), winner = coalesce(?, winner), updated_at = ?
                WHERE id = ?
                """, [now, winner, now, id])
        }
    }
}
