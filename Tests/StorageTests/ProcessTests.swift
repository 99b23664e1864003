import Foundation
import Synchronization
import Testing

@testable import Storage

/// A running `xizor-storage-fixture crash-writer DB`, collecting the numbers it prints.
final class CrashWriterProcess: Sendable {
    let process: Process
    private let output = Locked(Data())

    init(database: String) throws {
        let fixture = Repository.fixture
        try #require(
            FileManager.default.isExecutableFile(atPath: fixture),
            "build the fixture first (swift build): \(fixture)")
        process = Process()
        process.executableURL = URL(fileURLWithPath: fixture)
        process.arguments = ["crash-writer", database]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let output = self.output
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let chunk = handle.availableData
            output.update { $0.append(chunk) }
        }
        try process.run()
    }

    /// Complete lines printed so far, as numbers.
    var printed: [Int64] {
        let text = String(decoding: output.value, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        lines.removeLast()  // the (possibly partial) text after the last newline
        return lines.compactMap { Int64($0) }
    }

    /// Waits until at least `count` numbers were printed (or the process died).
    func waitForProgress(_ count: Int, timeout: TimeInterval = 30) {
        let deadline = Date().addingTimeInterval(timeout)
        while printed.count < count, process.isRunning, Date() < deadline { usleep(5_000) }
    }

    func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        // Let the pipe's reader drain what was written before the kill.
        usleep(100_000)
        if let handle = (process.standardOutput as? Pipe)?.fileHandleForReading {
            handle.readabilityHandler = nil
            let rest = handle.readDataToEndOfFile()
            output.update { $0.append(rest) }
        }
    }
}

func committedNumbers(in path: String) throws -> Set<Int64> {
    let db = try Database(path: path, mode: .readOnly)
    defer { db.close() }
    return Set(try db.query("SELECT n FROM crash").map { try $0.get(0, as: Int64.self) })
}

@Suite(.serialized) struct ProcessTests {
    /// A commit acknowledged before SIGKILL is never lost, and the file is never corrupted.
    @Test func killedWriterLosesNothingItAcknowledged() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("crash.sqlite")
        var previous = 0
        for run in 0..<5 {
            let writer = try CrashWriterProcess(database: path)
            writer.waitForProgress(1)
            usleep(useconds_t.random(in: 20_000...400_000))
            writer.kill()
            let printed = writer.printed
            #expect(!printed.isEmpty, "run \(run): the writer printed nothing")
            // Reopen read-write first, as a restarted server would (this runs WAL recovery).
            let reopened = try Database(path: path)
            #expect(try Backup.integrityCheck(reopened) == [], "run \(run)")
            reopened.close()
            let stored = try committedNumbers(in: path)
            let lost = printed.filter { !stored.contains($0) }
            #expect(lost.isEmpty, "run \(run): acknowledged but missing: \(lost.prefix(10))")
            // Rows are numbered consecutively across restarts: nothing in the middle vanished.
            #expect(stored.count == Int(stored.max() ?? 0), "run \(run)")
            #expect(stored.count > previous, "run \(run) made progress")
            previous = stored.count
        }
    }

    /// An online backup taken while another process writes holds a consistent prefix of the
    /// commits: every row the writer had acknowledged before the backup started, with no gaps.
    @Test func backupWhileAnotherProcessWrites() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("live.sqlite")
        let writer = try CrashWriterProcess(database: path)
        defer { writer.kill() }
        writer.waitForProgress(200)
        let acknowledgedBefore = writer.printed
        let backupPath = directory.file("backup.sqlite")
        try Backup.copy(from: path, to: backupPath)
        writer.waitForProgress(acknowledgedBefore.count + 50)
        #expect(writer.process.isRunning, "the writer kept writing during the backup")

        #expect(try Backup.integrityCheck(path: backupPath) == [])
        #expect(!FileManager.default.fileExists(atPath: backupPath + "-wal"))
        let copied = try committedNumbers(in: backupPath)
        #expect(acknowledgedBefore.allSatisfy(copied.contains))
        #expect(copied.count == Int(copied.max() ?? 0))
    }
}

@Suite struct BackupTests {
    @Test func backupDuringConcurrentWritesHasEveryCommittedRow() throws {
        let directory = try TemporaryDirectory()
        let pool = try migratedPool(in: directory)
        try pool.write { db in try db.execute("CREATE TABLE numbers (n INTEGER PRIMARY KEY) STRICT") }
        let committed = Locked<Int64>(0)
        let stop = Locked(false)
        let writerDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var n: Int64 = 0
            while !stop.value {
                n += 1
                let value = n
                do {
                    try pool.write { db in try db.execute("INSERT INTO numbers VALUES (?)", [value]) }
                } catch { break }
                committed.update { $0 = value }
            }
            writerDone.signal()
        }
        while committed.value < 100 { usleep(1_000) }
        let before = committed.value
        let backupPath = directory.file("backup.sqlite")
        try pool.backup(to: backupPath)
        stop.update { $0 = true }
        writerDone.wait()

        let restored = try DatabasePool(path: backupPath)
        defer { restored.close() }
        #expect(try restored.integrityCheck() == [])
        let (count, max): (Int64, Int64) = try restored.read { db in
            let row = try #require(try db.queryOne("SELECT count(*), coalesce(max(n), 0) FROM numbers"))
            return (try row.get(0), try row.get(1))
        }
        #expect(max >= before)
        #expect(count == max)
        // The restored copy carries the schema and its migration history.
        #expect(try Migrator(directory: Repository.migrations).pending(in: restored).isEmpty)
    }

    @Test func backupOfADatabaseNobodyHasOpen() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("idle.sqlite")
        do {
            let pool = try migratedPool(in: directory, readConnections: 1)
            try pool.write { db in try db.execute("INSERT INTO apps (id, name, created_at) VALUES ('a', 'A', 1)") }
            pool.close()
        }
        #expect(FileManager.default.fileExists(atPath: directory.file("xizor.sqlite")))
        try Backup.copy(from: directory.file("xizor.sqlite"), to: path)
        let copy = try Database(path: path, mode: .readOnly)
        #expect(try copy.queryOne("SELECT name FROM apps WHERE id = 'a'")?.get(0) == "A")
        #expect(try copy.queryOne("PRAGMA journal_mode")?.get(0) == "delete")
        // An existing file at the destination is replaced whole.
        try Backup.copy(from: directory.file("xizor.sqlite"), to: path)
        #expect(try Backup.integrityCheck(path: path) == [])
        #expect(throws: SQLiteError.self) {
            try Backup.copy(from: directory.file("nope.sqlite"), to: directory.file("x.sqlite"))
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("x.sqlite")))
    }

    @Test func integrityCheckReportsCorruption() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("c.sqlite")
        do {
            let db = try Database(path: path)
            try db.execute("CREATE TABLE t (v TEXT) STRICT")
            try db.execute("CREATE INDEX t_v ON t (v)")
            try db.transaction { db in
                for i in 0..<2000 {
                    try db.execute("INSERT INTO t VALUES (?)", ["value \(i) " + String(repeating: "x", count: 100)])
                }
            }
            _ = try db.query("PRAGMA wal_checkpoint(TRUNCATE)")
            try db.execute("PRAGMA journal_mode=DELETE")
            db.close()
        }
        #expect(try Backup.integrityCheck(path: path) == [])
        // Scribble over a page in the middle of the file.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: 4096 * 20 + 100)
        handle.write(Data(repeating: 0xAB, count: 3000))
        try handle.close()
        let problems = try? Backup.integrityCheck(path: path)
        #expect(problems == nil || problems?.isEmpty == false)
        #expect(throws: SQLiteError.self) { try Backup.integrityCheck(path: directory.file("missing.sqlite")) }
    }
}
