/// All SQL the operations endpoints need: the readiness probe's durable write and the schema's state.
public protocol OperationsStore {
    /// Upserts the probe's row: a real write through the journal and the file system, yet tiny.
    func recordReadinessProbe(now: Int64) throws
    /// How many migrations the database has applied.
    func appliedMigrationCount() throws -> Int
}
