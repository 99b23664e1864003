import Foundation
import Storage

/// Keeps a lost or damaged database from being mistaken for a new, empty one. Once a database has
/// been initialised in a data directory, a marker file beside it says so; from then on a missing
/// or empty database file is an error (restore it from a backup), never a reason to start afresh.
/// A database that exists is checked (by default `PRAGMA quick_check` of its tables but the events
/// and their rollups) before anything serves it.
struct DataDirectoryGuard {
    /// Exit code of every refusal, so supervisors can tell "the data is gone or damaged" from
    /// a configuration mistake (1) or bad usage (64).
    static let exitCode = ExitStatus.dataDirectoryRefused
    static let markerName = "xizor.initialized"

    /// What a start checks (`storage.startupCheck`). The events, and the rollups derived from them,
    /// are the tables that grow with an app's history: at 50 M events they were 95 % of a 21.6 GB
    /// file, whose whole `quick_check` took 334 s with nothing served. A damaged page of theirs
    /// fails what reads or writes them (ingest, a frequency cap's count, the rollup job, reports,
    /// exports), not a paywall's delivery or the dashboard's configuration: `quick` leaves them to
    /// `file`, `full` and `xizor backup --check`.
    enum Check: String, Sendable { case quick, file, full, none }

    /// The tables `quick` leaves out: the events and their rollups (docs/analytics.md), whose size
    /// is the apps' history, not their configuration.
    static let historyTables: Set<String> = [
        "events", "event_rollup_queue", "funnel_rollups", "revenue_rollups", "experiment_subscribers",
        "experiment_rollups", "experiment_revenue_rollups",
    ]

    let directory: String
    let databasePath: String

    var markerPath: String { (directory as NSString).appendingPathComponent(Self.markerName) }

    private var databaseSize: Int? {
        (try? FileManager.default.attributesOfItem(atPath: databasePath)[.size] as? NSNumber)?.intValue
    }

    /// Before opening: refuses when the marker says a database existed but the file is missing or empty.
    func checkBeforeOpening() throws {
        guard FileManager.default.fileExists(atPath: markerPath) else { return }
        let size = databaseSize
        if size == nil || size == 0 {
            throw CommandFailure(
                """
                database \(databasePath) is \(size == nil ? "missing" : "empty"), but \(markerPath) records that this data \
                directory held one; refusing to start with an empty dataset. Restore the database from a backup \
                (see docs/operations.md), or delete \(markerPath) to deliberately start from scratch.
                """, exitCode: Self.exitCode)
        }
    }

    /// After opening, before migrating: a database the marker vouches for must already carry the
    /// migrations table (an empty replacement file would otherwise be migrated into a blank dataset);
    /// then the configured integrity check.
    func checkOpened(_ pool: DatabasePool, check: Check) throws {
        let markerExists = FileManager.default.fileExists(atPath: markerPath)
        do {
            let hasSchema = try pool.hasTable(named: "schema_migrations")
            if markerExists && !hasSchema {
                throw CommandFailure(
                    """
                    database \(databasePath) holds no Xizor schema, but \(markerPath) records that this data directory \
                    held an initialised database; refusing to start with an empty dataset. Restore the database from a \
                    backup, or delete \(markerPath) to deliberately start from scratch.
                    """, exitCode: Self.exitCode)
            }
            let problems: [String]
            switch check {
            case .none: return
            case .quick:
                problems = try pool.quickCheckProblems(
                    tables: try pool.tableNames().filter { !Self.historyTables.contains($0) })
            case .file, .full: problems = try pool.integrityProblems(thorough: check == .full)
            }
            guard problems.isEmpty else {
                let pragma = check == .full ? "integrity_check" : "quick_check"
                throw CommandFailure(
                    """
                    database \(databasePath) is damaged (PRAGMA \(pragma): \(problems.prefix(5).joined(separator: "; "))); refusing \
                    to serve it. Restore it from a backup (see docs/operations.md).
                    """, exitCode: Self.exitCode)
            }
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(
                "database \(databasePath) cannot be read (\(error)); refusing to serve it. Restore it from a backup.",
                exitCode: Self.exitCode)
        }
    }

    /// After migrating: records that this directory now holds an initialised database.
    func recordInitialised() throws {
        guard !FileManager.default.fileExists(atPath: markerPath) else { return }
        let text =
            "{\"database\":\"\((databasePath as NSString).lastPathComponent)\",\"initializedAt\":\"\(ISO8601DateFormatter().string(from: Date()))\"}\n"
        do { try Data(text.utf8).write(to: URL(fileURLWithPath: markerPath), options: .atomic) } catch {
            throw CommandFailure("cannot write \(markerPath): \(error.localizedDescription)")
        }
    }
}
