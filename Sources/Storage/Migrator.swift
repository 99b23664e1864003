import Digest
import Foundation

/// Why start-up must stop rather than run on a schema it cannot vouch for.
public enum MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The directory could not be listed or a file could not be read.
    case unreadable(path: String, reason: String)
    /// A file in the directory looks like a migration but is not named `NNNN_description.sql`.
    case badFileName(String)
    /// Two files share a number.
    case duplicateNumber(Int, [String])
    /// An applied migration's file changed since it was applied.
    case changed(name: String, appliedChecksum: String, fileChecksum: String)
    /// An applied migration's file is gone (deleted or renamed) though later files exist.
    case missing(name: String)
    /// The database records migrations numbered past every file here: it was migrated by a newer
    /// build, or pointed at the wrong directory.
    case unknownApplied(names: [String])
    /// A file numbered below an already applied migration is not applied: order would break.
    case outOfOrder(name: String, after: String)
    /// Applying a migration failed; it was rolled back.
    case failed(name: String, error: SQLiteError)
    /// Reading or writing `schema_migrations` failed.
    case storage(SQLiteError)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): return "cannot read migrations at \(path): \(reason)"
        case .badFileName(let name): return "migration file \(name) is not named NNNN_description.sql"
        case .duplicateNumber(let n, let names):
            return "migration number \(n) is used by \(names.joined(separator: ", "))"
        case .changed(let name, let applied, let file):
            return
                "migration \(name) was changed after it was applied (applied checksum \(applied), file now \(file)); restore the file and add a new migration instead"
        case .missing(let name): return "migration \(name) was applied to this database but its file is gone"
        case .unknownApplied(let names):
            return
                "this database has migrations this build does not know: \(names.joined(separator: ", ")) (migrated by a newer version?)"
        case .outOfOrder(let name, let after):
            return
                "migration \(name) is pending but \(after) is already applied; renumber it after the last applied one"
        case .failed(let name, let error): return "migration \(name) failed and was rolled back: \(error)"
        case .storage(let error): return "cannot read schema_migrations: \(error)"
        }
    }
}

/// One migration file: `NNNN_description.sql`, identified by its file name and SHA-256 checksum.
public struct Migration: Sendable, Equatable {
    public let number: Int
    public let name: String
    public let sql: String
    /// SHA-256 of the file's bytes, hex.
    public let checksum: String
}

/// Applies `NNNN_description.sql` migrations in order, each in its own transaction, and records
/// each with its checksum in `schema_migrations`; refuses to continue when history and files
/// disagree, because a schema that silently differs between installs is worse than not starting.
/// The files come from a directory or, in the product, from the copy embedded in the binary.
public struct Migrator: Sendable {
    /// Where the files came from (a directory, or "embedded"), for messages.
    public let source: String
    public let migrations: [Migration]

    static let createTable = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            name TEXT PRIMARY KEY,
            checksum TEXT NOT NULL CHECK (length(checksum) = 64),
            applied_at INTEGER NOT NULL
        ) STRICT
        """

    /// Migrations given as file names and contents; every name must be `NNNN_description.sql` and
    /// every number unique. The checksum is over the contents' UTF-8 bytes, as for files on disk.
    public init(files: [(name: String, sql: String)], source: String) throws(MigrationError) {
        self.source = source
        var found: [Migration] = []
        for (name, sql) in files.sorted(by: { $0.name < $1.name }) {
            guard name.hasSuffix(".sql"), let number = Migrator.number(of: name) else { throw .badFileName(name) }
            found.append(Migration(number: number, name: name, sql: sql, checksum: SHA256.hexDigest(Array(sql.utf8))))
        }
        found.sort { $0.number < $1.number }
        for (a, b) in zip(found, found.dropFirst()) where a.number == b.number {
            throw .duplicateNumber(a.number, [a.name, b.name])
        }
        migrations = found
    }

    /// Reads every `*.sql` file of `directory` (other files, like README.md, are ignored).
    public init(directory: URL) throws(MigrationError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw .unreadable(path: directory.path, reason: error.localizedDescription)
        }
        var files: [(name: String, sql: String)] = []
        for name in names.sorted() where name.hasSuffix(".sql") {
            let data: Data
            do {
                data = try Data(contentsOf: directory.appendingPathComponent(name))
            } catch {
                throw .unreadable(path: directory.appendingPathComponent(name).path, reason: error.localizedDescription)
            }
            guard let sql = String(data: data, encoding: .utf8) else {
                throw .unreadable(path: name, reason: "not UTF-8")
            }
            files.append((name, sql))
        }
        try self.init(files: files, source: directory.path)
    }

    public init(path: String) throws(MigrationError) {
        try self.init(directory: URL(fileURLWithPath: path, isDirectory: true))
    }

    /// `NNNN` of `NNNN_description.sql`: four or more digits, an underscore, a description.
    static func number(of name: String) -> Int? {
        let stem = name.dropLast(4)
        guard let underscore = stem.firstIndex(of: "_") else { return nil }
        let digits = stem[..<underscore]
        let description = stem[stem.index(after: underscore)...]
        guard digits.count >= 4, digits.allSatisfy(\.isASCII), !description.isEmpty,
            description.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
        else { return nil }
        return Int(digits)
    }

    /// The migrations not yet applied, in order, after checking history against the files.
    public func pending(in pool: DatabasePool) throws(MigrationError) -> [Migration] {
        do {
            return try pool.write { db in try self.pending(in: db) }
        } catch let error as MigrationError {
            throw error
        } catch let error as SQLiteError {
            throw .storage(error)
        } catch {
            throw .storage(SQLiteError(code: 1, message: "\(error)"))
        }
    }

    /// Checks history and applies every pending migration, each in its own IMMEDIATE transaction
    /// (re-checked inside it, so two processes migrating at once apply each file once). Returns
    /// the names applied, empty when the schema was current.
    @discardableResult
    public func migrate(_ pool: DatabasePool, now: @Sendable () -> Date = Date.init) throws(MigrationError) -> [String]
    {
        var applied: [String] = []
        while true {
            let next: Migration?
            do {
                next = try pool.write { db -> Migration? in
                    guard let migration = try self.pending(in: db).first else { return nil }
                    do throws(SQLiteError) {
                        try db.executeScript(migration.sql)
                    } catch {
                        throw MigrationError.failed(name: migration.name, error: error)
                    }
                    try db.execute(
                        "INSERT INTO schema_migrations (name, checksum, applied_at) VALUES (?, ?, ?)",
                        [migration.name, migration.checksum, now()])
                    return migration
                }
            } catch let error as MigrationError {
                throw error
            } catch let error as SQLiteError {
                throw .storage(error)
            } catch {
                throw .storage(SQLiteError(code: 1, message: "\(error)"))
            }
            guard let next else { return applied }
            applied.append(next.name)
        }
    }

    /// Compares `schema_migrations` with the files; the caller holds a transaction.
    func pending(in db: Database) throws -> [Migration] {
        try db.execute(Migrator.createTable)
        var recorded: [(name: String, checksum: String)] = []
        for row in try db.query("SELECT name, checksum FROM schema_migrations ORDER BY name") {
            recorded.append((try row.get(0), try row.get(1)))
        }
        return try plan(recorded: recorded)
    }

    /// The migrations still to apply given what a database recorded as applied (name and checksum),
    /// after checking that history and files agree; the same rules for every database.
    public func plan(recorded: [(name: String, checksum: String)]) throws(MigrationError) -> [Migration] {
        let byName = Dictionary(uniqueKeysWithValues: migrations.map { ($0.name, $0) })
        let highestFile = migrations.last?.number ?? -1
        var unknown: [String] = []
        for entry in recorded {
            if let file = byName[entry.name] {
                guard file.checksum == entry.checksum else {
                    throw MigrationError.changed(
                        name: entry.name, appliedChecksum: entry.checksum, fileChecksum: file.checksum)
                }
            } else if let number = Migrator.number(of: entry.name), number > highestFile {
                unknown.append(entry.name)
            } else {
                throw MigrationError.missing(name: entry.name)
            }
        }
        if !unknown.isEmpty { throw MigrationError.unknownApplied(names: unknown) }
        let appliedNames = Set(recorded.map(\.name))
        let pending = migrations.filter { !appliedNames.contains($0.name) }
        if let first = pending.first,
            let lastApplied = migrations.last(where: { appliedNames.contains($0.name) }),
            lastApplied.number > first.number
        {
            throw MigrationError.outOfOrder(name: first.name, after: lastApplied.name)
        }
        return pending
    }
}
