import Foundation
import Testing

/// The store layer's boundary, checked on the source tree: all SQL of the API layer lives in the
/// stores (`SQL*.swift`, written once for both databases, and the few `SQLite*.swift` and
/// `Postgres*.swift` where the databases truly differ); nothing else in XizorAPI or the CLI talks to
/// a connection.
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

    static func isStore(_ path: String) -> Bool {
        let name = (path as NSString).lastPathComponent
        // `*Rows.swift`: the row decoding both SQL stores of an aggregate share.
        return name.hasPrefix("SQL") || name.hasPrefix("Postgres") || name.hasSuffix("Rows.swift")
    }

    @Test func onlyTheStoresImportTheSQLiteLayer() throws {
        let files = try Self.sources("XizorAPI")
        #expect(files.count > 50, "the source tree was found")
        let offenders = files.filter { file in
            (file.text.contains("import Storage") || file.text.contains("import PostgresStorage"))
                && !Self.isStore(file.path) && !Self.allowedImporters.contains(file.path)
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
            where !Self.isStore(file.path) && !file.path.hasPrefix("Schema/Embedded") {
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
        for (folder, files) in [
            ("Apps", ["AppStore", "SQLAppStore", "KeyService", "AppRoutes"]),
            (
                "Paywalls",
                [
                    "PaywallStore", "SQLPaywallStore", "PaywallService", "PaywallRoutes",
                    "PaywallTools",
                ]
            ),
            (
                "Placements",
                [
                    "PlacementStore", "SQLPlacementStore", "PlacementService",
                    "PlacementRoutes", "PlacementTools",
                ]
            ),
            (
                "Experiments",
                [
                    "ExperimentStore", "SQLExperimentStore", "ExperimentService",
                    "ExperimentRoutes", "ExperimentTools",
                ]
            ),
            (
                "Events",
                [
                    "EventStore", "SQLiteEventStore", "PostgresEventStore", "EventService", "EventRoutes",
                    "AnalyticsTools",
                ]
            ),
            ("Timers", ["TimerStore", "SQLTimerStore", "TimerService", "TimerRoutes"]),
        ] {
            for file in files { #expect(paths.contains("\(folder)/\(file).swift"), "\(folder)/\(file).swift") }
        }
    }
}
