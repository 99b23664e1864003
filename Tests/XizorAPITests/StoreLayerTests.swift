import Foundation
import Testing

/// The store layer's boundary. The compiler keeps most of it: the stores are a module of their own
/// (`XizorStores`) that depends on XizorAPI, so nothing in XizorAPI can import one. What it cannot
/// see is checked here on the source tree: no file of XizorAPI or the CLI runs a statement, and only
/// three of XizorAPI import a database layer at all.
@Suite struct StoreLayerTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Files outside the stores that may import the SQLite layer, and why.
    static let allowedImporters: Set<String> = [
        "Store/DataStore.swift",  // the protocol names `StorageMetrics`
        "Operations/MetricsExposition.swift",  // renders `StorageMetrics`
        "Schema/XizorSchema.swift",  // builds the migrator over the embedded migrations
    ]

    static func sources(_ module: String) throws -> [(path: String, text: String)] {
        let base = root.appendingPathComponent("Sources/\(module)")
        guard let walker = FileManager.default.enumerator(atPath: base.path) else { return [] }
        return try walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map { relative in
            (relative, try String(contentsOf: base.appendingPathComponent(relative), encoding: .utf8))
        }
    }

    @Test func onlyTheStoresImportTheSQLiteLayer() throws {
        let files = try Self.sources("XizorAPI")
        #expect(files.count > 50, "the source tree was found")
        let offenders = files.filter { file in
            (file.text.contains("import Storage") || file.text.contains("import PostgresStorage"))
                && !Self.allowedImporters.contains(file.path)
        }.map(\.path)
        #expect(offenders.isEmpty, "outside the stores: \(offenders)")
    }

    @Test func noSQLOutsideTheStores() throws {
        let statement = try NSRegularExpression(
            pattern:
                #"(db\.(query|queryOne|execute|rows|row|run)\(|"(SELECT|INSERT|UPDATE|DELETE|PRAGMA) |^\s+(SELECT .* FROM|INSERT INTO|UPDATE \w+ SET|DELETE FROM) )"#,
            options: [.anchorsMatchLines])
        var offenders: [String] = []
        for module in ["XizorAPI", "XizorCLI"] {
            for file in try Self.sources(module)
            where !file.path.hasPrefix("Schema/Embedded") {
                let range = NSRange(file.text.startIndex..., in: file.text)
                for match in statement.matches(in: file.text, range: range) {
                    let line = file.text[..<(Range(match.range, in: file.text)?.lowerBound ?? file.text.startIndex)]
                        .split(separator: "\n", omittingEmptySubsequences: false).count
                    offenders.append("\(module)/\(file.path):\(line)")
                }
            }
        }
        #expect(offenders.isEmpty, "SQL outside the stores: \(offenders)")
    }

    @Test func everyAggregateKeepsItsStoreServiceAndRoutesTogether() throws {
        let paths = Set(try Self.sources("XizorAPI").map(\.path))
        let stores = Set(try Self.sources("XizorStores").map(\.path))
        for (folder, files, store) in [
            ("Apps", ["AppStore", "KeyService", "AppRoutes"], ["SQLAppStore"]),
            ("Paywalls", ["PaywallStore", "PaywallService", "PaywallRoutes", "PaywallTools"], ["SQLPaywallStore"]),
            (
                "Placements", ["PlacementStore", "PlacementService", "PlacementRoutes", "PlacementTools"],
                ["SQLPlacementStore"]
            ),
            (
                "Experiments", ["ExperimentStore", "ExperimentService", "ExperimentRoutes", "ExperimentTools"],
                ["SQLExperimentStore"]
            ),
            (
                "Events", ["EventStore", "EventService", "EventRoutes", "AnalyticsTools"],
                ["SQLEventStore", "EventJSON", "EventIngest"]
            ),
            ("Timers", ["TimerStore", "TimerService", "TimerRoutes"], ["SQLTimerStore"]),
        ] {
            for file in files { #expect(paths.contains("\(folder)/\(file).swift"), "\(folder)/\(file).swift") }
            for file in store { #expect(stores.contains("\(file).swift"), "XizorStores/\(file).swift") }
        }
        #expect(!paths.contains { ($0 as NSString).lastPathComponent.hasPrefix("SQL") }, "a store outside XizorStores")
    }
}
