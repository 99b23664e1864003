import Foundation
import Storage
@testable import XizorAPI

/// Real services over a new, migrated SQLite file in a directory of its own (removed by `remove`).
struct TestServices {
    let directory: URL
    let services: XizorServices

    init(_ label: String = "services") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("xizor-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: directory.appendingPathComponent("xizor.sqlite").path)
        _ = try XizorSchema.migrator().migrate(pool)
        services = try XizorServices(pool: pool)
    }

    func remove() {
        services.store.close()
        try? FileManager.default.removeItem(at: directory)
    }
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
