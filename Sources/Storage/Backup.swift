import CSQLite
import Foundation

/// Consistent copies and integrity checks of a live database, for `xizor backup`.
public enum Backup {
    /// Copies the database at `sourcePath` to `destinationPath` with SQLite's online backup API,
    /// reading one snapshot while other connections (or processes) keep writing. The copy is
    /// written beside the destination, switched out of WAL into a single self-contained file,
    /// synced, then renamed into place, so a crash never leaves a half-written backup at the path.
    public static func copy(
        from sourcePath: String, to destinationPath: String,
        configuration: DatabaseConfiguration = DatabaseConfiguration()
    ) throws(SQLiteError) {
        let source = try Database(path: sourcePath, mode: .readOnly, configuration: configuration)
        defer { source.close() }
        try copy(from: source, to: destinationPath)
    }

    static func copy(from source: Database, to destinationPath: String) throws(SQLiteError) {
        let temporary = destinationPath + ".partial-\(getpid())"
        removeFiles(temporary)
        do throws(SQLiteError) {
            let destination = try Database(path: temporary, mode: .readWriteCreate)
            defer { destination.close() }
            let sourceHandle = try source.live()
            let destinationHandle = try destination.live()
            guard let backup = sqlite3_backup_init(destinationHandle, "main", sourceHandle, "main") else {
                throw SQLiteError(
                    code: sqlite3_extended_errcode(destinationHandle), connection: destinationHandle,
                    sql: "backup of \(source.path)")
            }
            // -1: all pages in one step, under one read transaction of the source: one snapshot.
            var code = sqlite3_backup_step(backup, -1)
            while code == SQLITE_BUSY || code == SQLITE_LOCKED {
                usleep(10_000)
                code = sqlite3_backup_step(backup, -1)
            }
            let finish = sqlite3_backup_finish(backup)
            guard code == SQLITE_DONE else {
                throw SQLiteError(
                    code: code, message: "backup of \(source.path) failed: \(String(cString: sqlite3_errstr(code)))")
            }
            guard finish == SQLITE_OK else {
                throw SQLiteError(code: finish, connection: destinationHandle, sql: "backup of \(source.path)")
            }
            // A backup should be one file that opens anywhere, not a database plus a -wal file.
            _ = try destination.queryOne("PRAGMA journal_mode=DELETE")
            destination.close()
        } catch {
            removeFiles(temporary)
            throw error
        }
        try syncFile(temporary)
        guard rename(temporary, destinationPath) == 0 else {
            let reason = String(cString: strerror(errno))
            removeFiles(temporary)
            throw SQLiteError(code: SQLITE_CANTOPEN, message: "cannot move backup into \(destinationPath): \(reason)")
        }
        syncDirectory(of: destinationPath)
    }

    /// Runs `PRAGMA integrity_check` on the database at `path` and returns the problems it reports;
    /// an empty array means the database is sound.
    public static func integrityCheck(path: String) throws(SQLiteError) -> [String] {
        let database = try Database(path: path, mode: .readOnly)
        defer { database.close() }
        return try integrityCheck(database)
    }

    /// `PRAGMA integrity_check` on an open connection; empty when sound.
    public static func integrityCheck(_ database: Database) throws(SQLiteError) -> [String] {
        var lines: [String] = []
        for row in try database.query("PRAGMA integrity_check") { lines.append(try row.get(0)) }
        return lines == ["ok"] ? [] : lines
    }

    private static func removeFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }

    private static func syncFile(_ path: String) throws(SQLiteError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw SQLiteError(code: SQLITE_CANTOPEN, message: "cannot open \(path) to sync it") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw SQLiteError(code: SQLITE_IOERR, message: "fsync of \(path) failed") }
    }

    private static func syncDirectory(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }
}

extension DatabasePool {
    /// A consistent online copy of this database at `path`, made from one of the pool's read
    /// connections while the writer keeps writing.
    public func backup(to path: String) throws(SQLiteError) {
        do {
            try withReader { reader in try Backup.copy(from: reader, to: path) }
        } catch let error as SQLiteError {
            throw error
        } catch {
            throw SQLiteError(code: 1, message: "\(error)")
        }
    }

    /// `PRAGMA integrity_check` on a read connection; empty when sound.
    public func integrityCheck() throws(SQLiteError) -> [String] {
        do {
            return try read { db in try Backup.integrityCheck(db) }
        } catch let error as SQLiteError {
            throw error
        } catch {
            throw SQLiteError(code: 1, message: "\(error)")
        }
    }
}
