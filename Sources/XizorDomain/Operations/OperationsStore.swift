/// All SQL the operations endpoints need: the readiness probe's durable write and the schema's state.
public protocol OperationsStore {
    /// Upserts the probe's row: a real write through the journal and the file system, yet tiny.
    func recordReadinessProbe(now: Int64) throws
    /// How many migrations the database has applied.
    func appliedMigrationCount() throws -> Int
    /// A server-wide secret (text) stored once in `settings` under `key`: `candidate` if none was
    /// stored yet (the first replica's wins), else the stored one. Run in a write transaction.
    func sharedSecret(_ key: String, candidate: String, now: Int64) throws -> String
    /// A server-wide setting's stored text, or nil.
    func setting(_ key: String) throws -> String?
    /// Stores `value` under `key` (nil removes it). Run in a write transaction.
    func setSetting(_ key: String, _ value: String?, now: Int64) throws
}
