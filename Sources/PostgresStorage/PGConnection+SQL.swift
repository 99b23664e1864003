import Storage

/// The stores written once (`SQL`) run on PostgreSQL with `$n` placeholders.
extension PGConnection: SQLConnection {
    public var dialect: SQLDialect { .postgres }
    public func rows(_ sql: SQL) throws -> [Row] { try query(sql.text(for: .postgres), sql.bindings) }
    public func row(_ sql: SQL) throws -> Row? { try queryOne(sql.text(for: .postgres), sql.bindings) }
    public func run(_ sql: SQL) throws { try execute(sql.text(for: .postgres), sql.bindings) }
}
