import Foundation
import PostgresStorage
import Storage
import Synchronization
import XizorStores

@testable import XizorAPI
@testable import XizorDomain

/// The databases the services run on; suites that hold for both take it as a test argument.
enum Driver: String, CaseIterable, CustomStringConvertible {
    case sqlite, postgres
    var description: String { rawValue }
}

/// Real services over a new, migrated database of their own: an SQLite file in a directory of its
/// own, or a database on the throwaway PostgreSQL cluster `make test` starts
/// (`XIZOR_TEST_POSTGRES_URL`; without it a PostgreSQL test fails and says so). `remove` drops it.
struct TestServices {
    let directory: URL
    let services: XizorServices
    let driver: Driver
    /// The PostgreSQL database's connection string (nil on SQLite), for a second set of services.
    let postgresURL: String?
    private let dropDatabase: @Sendable () -> Void

    init(
        _ label: String = "services", driver: Driver = .sqlite, limits: XizorServices.Limits = .init(),
        clock: Clock = .system
    ) throws {
        self.driver = driver
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("xizor-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        switch driver {
        case .sqlite:
            let pool = try DatabasePool(path: directory.appendingPathComponent("xizor.sqlite").path)
            _ = try XizorSchema.migrator().migrate(pool)
            services = try XizorServices(store: SQLiteDataStore(pool: pool), clock: clock, limits: limits)
            postgresURL = nil
            dropDatabase = {}
        case .postgres:
            guard let server = ProcessInfo.processInfo.environment["XIZOR_TEST_POSTGRES_URL"] else {
                throw TestSetupError(
                    "XIZOR_TEST_POSTGRES_URL is not set: run `make test` or Tests/postgres/with-cluster.sh swift test")
            }
            let name =
                "xizor_\(label.lowercased().filter { $0.isLetter })_\(UUID().uuidString.lowercased().filter { $0.isHexDigit })"
            let admin = try PGConnection(url: server)
            try admin.executeScript("CREATE DATABASE \(name)")
            admin.close()
            let url = server + " dbname=\(name)"
            let pool = try PGPool(url: url, size: 4)
            _ = try PGMigrator(XizorSchema.postgresMigrator()).migrate(pool)
            services = try XizorServices(store: PostgresDataStore(pool: pool), clock: clock, limits: limits)
            postgresURL = url
            dropDatabase = {
                guard let admin = try? PGConnection(url: server) else { return }
                try? admin.executeScript("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
                admin.close()
            }
        }
    }

    /// Another process's services on the same database (each with its own connections and state).
    func second(limits: XizorServices.Limits = .init()) throws -> XizorServices {
        switch driver {
        case .sqlite:
            return try XizorServices(
                pool: DatabasePool(path: directory.appendingPathComponent("xizor.sqlite").path), limits: limits)
        case .postgres:
            return try XizorServices(
                store: PostgresDataStore(pool: PGPool(url: postgresURL ?? "", size: 4)), limits: limits)
        }
    }

    func remove() {
        services.store.close()
        dropDatabase()
        try? FileManager.default.removeItem(at: directory)
    }
}

struct TestSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Whether `body` fails with a `ServiceError` of `code`.
func failsWith(_ code: String, _ body: () throws -> Void) -> Bool {
    do {
        try body()
        return false
    } catch let error as ServiceError {
        return error.code == code
    } catch {
        return false
    }
}

extension XizorServices {
    /// Services over an SQLite pool, as `serve` builds them.
    convenience init(pool: DatabasePool, limits: Limits = Limits()) throws {
        try self.init(store: SQLiteDataStore(pool: pool), limits: limits)
    }

    /// The SQLite pool under the store, for tests that write what no service would (damaged rows).
    var pool: DatabasePool {
        guard let sqlite = store as? SQLiteDataStore else { preconditionFailure("these tests run on SQLite") }
        return sqlite.pool
    }
}

/// A clock the test moves (milliseconds since 1970).
final class TestClock: Sendable {
    private let value: Mutex<Int64>
    init(_ start: Int64) { value = Mutex(start) }
    var now: Int64 { value.withLock { $0 } }
    func advance(byMs ms: Int64) { value.withLock { $0 += ms } }
    var clock: Clock { Clock { [self] in now } }
}
