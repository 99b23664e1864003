import Dispatch
import Synchronization
import XizorLog

#if canImport(Glibc)
    import Glibc
#endif

/// Whether this instance should receive traffic: not draining, the database open, migrated and
/// writable, and room left on its disk. The write probe upserts one row of `settings`, so it
/// really goes through the WAL and the file system, yet costs one tiny transaction.
///
/// `/readyz` is open to anyone, so the durable write must not be theirs to multiply: the probe
/// runs at most once per `probeIntervalMs`, whatever the number of callers (they share its
/// outcome; one runs it while the others wait for it). Draining and free space are read live:
/// both are cheap and should show at once. Answers carry no paths or SQLite internals; those go to
/// the log.
package final class ReadinessCheck: Sendable {
    package static let defaultMinimumFreeBytes = 1 << 20
    package static let defaultProbeIntervalMs = 1000

    private enum Probe {
        case writable(appliedMigrations: Int)
        case unwritable
    }

    let store: any DataStore
    let clock: Clock
    let isDraining: @Sendable () -> Bool
    /// Whether the change feed's last poll succeeded (every other process's writes are applied).
    let feedCaughtUp: @Sendable () -> Bool
    let dataDirectory: String?
    let minimumFreeBytes: Int
    let expectedMigrations: Int?
    let probeIntervalMs: Int
    let logger: Logger?
    /// The last probe's outcome and when (monotonic milliseconds) it ran.
    private let lastProbe = Mutex<(atMillis: Int64, outcome: Probe)?>(nil)

    package init(
        store: any DataStore, clock: Clock, isDraining: @escaping @Sendable () -> Bool,
        feedCaughtUp: @escaping @Sendable () -> Bool = { true }, dataDirectory: String?,
        minimumFreeBytes: Int, expectedMigrations: Int?, probeIntervalMs: Int = ReadinessCheck.defaultProbeIntervalMs,
        logger: Logger? = nil
    ) {
        self.store = store
        self.clock = clock
        self.isDraining = isDraining
        self.feedCaughtUp = feedCaughtUp
        self.dataDirectory = dataDirectory
        self.minimumFreeBytes = minimumFreeBytes
        self.expectedMigrations = expectedMigrations
        self.probeIntervalMs = probeIntervalMs
        self.logger = logger
    }

    /// Throws the first failing check as a 503 `ServiceError`.
    package func check() throws {
        if isDraining() {
            throw ServiceError(.unavailable, "draining", "The server is shutting down and takes no new traffic.")
        }
        if let dataDirectory, let free = Self.freeBytes(dataDirectory), free < minimumFreeBytes {
            logger?.warning(
                "not ready: disk nearly full",
                [("dataDirectory", .string(dataDirectory)), ("freeBytes", .int(Int64(free)))])
            throw ServiceError(
                .unavailable, "disk_full",
                "The data directory has \(free) bytes free (needs at least \(minimumFreeBytes)).")
        }
        if !feedCaughtUp() {
            throw ServiceError(
                .unavailable, "changes_behind",
                "The server lost its database and has not yet read the changes made meanwhile; it serves again once it has."
            )
        }
        switch probe() {
        case .unwritable:
            throw ServiceError(
                .unavailable, "database_unwritable", "The database is not writable; the server's log says why.")
        case .writable(let applied):
            if let expectedMigrations, applied < expectedMigrations {
                throw ServiceError(
                    .unavailable, "migrations_pending",
                    "The database has \(applied) of \(expectedMigrations) migrations applied.")
            }
        }
    }

    /// The write probe's outcome, run now only when the last one is older than the interval.
    private func probe() -> Probe {
        lastProbe.withLock { last in
            let now = Int64(DispatchTime.now().uptimeNanoseconds / 1_000_000)
            if let last, now - last.atMillis < Int64(probeIntervalMs) { return last.outcome }
            let outcome = runProbe()
            last = (now, outcome)
            return outcome
        }
    }

    private func runProbe() -> Probe {
        do {
            let now = clock.now()
            let applied = try store.write { tx in
                try tx.operations.recordReadinessProbe(now: now)
                return try tx.operations.appliedMigrationCount()
            }
            return .writable(appliedMigrations: applied)
        } catch {
            logger?.error("not ready: the database is not writable", [("error", .string(String(describing: error)))])
            return .unwritable
        }
    }

    /// Bytes available to this (unprivileged) process on the file system holding `path`.
    static func freeBytes(_ path: String) -> Int? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }
}
