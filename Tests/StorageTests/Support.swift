import Foundation
import Storage
import Synchronization

/// A fresh directory under the system temp dir, removed when the value is released.
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        path =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("xizor-storage-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

enum Repository {
    /// ROOT of the package, from this file's location (ROOT/Tests/StorageTests/Support.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let migrations = root.appendingPathComponent("Migrations")
    /// Built by `swift build` (the Makefile runs it before `swift test`).
    static let fixture =
        ProcessInfo.processInfo.environment["XIZOR_STORAGE_FIXTURE"]
        ?? root.appendingPathComponent(".build/debug/xizor-storage-fixture").path
}

/// A pool on a new file with the real migrations applied.
func migratedPool(in directory: TemporaryDirectory, readConnections: Int = 2) throws -> DatabasePool {
    let pool = try DatabasePool(
        path: directory.file("xizor.sqlite"),
        configuration: DatabaseConfiguration(readConnections: readConnections))
    try Migrator(directory: Repository.migrations).migrate(pool)
    return pool
}

struct Boom: Error, Equatable {}

/// Hands a value to another thread in a test where the hand-over is sequenced by hand.
final class Handover<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A value shared between test threads (Mutex itself cannot be captured by escaping closures).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    var value: Value { mutex.withLock { $0 } }
    func update(_ body: (inout Value) -> Void) { mutex.withLock { body(&$0) } }
}
