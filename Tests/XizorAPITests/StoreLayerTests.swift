import Foundation
import Testing

/// The layers' boundaries. The compiler keeps most of them: the domain (`XizorDomain`) cannot import
/// HTTP, the surfaces (`XizorAPI`) cannot import the stores (`XizorStores`), which depend on the
/// domain's store protocols. What it cannot see is checked here on the source tree: no file of the
/// domain, the surfaces or the CLI runs a statement, only three import a database layer at all, and
/// each aggregate goes by one folder name in every layer.
@Suite struct StoreLayerTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Files outside the stores that may import the SQLite layer, and why.
    static let allowedImporters: Set<String> = [
        "XizorDomain/Store/DataStore.swift",  // the protocol names `StorageMetrics`
        "XizorDomain/Schema/XizorSchema.swift",  // builds the migrator over the embedded migrations
        "XizorAPI/Operations/MetricsExposition.swift",  // renders `StorageMetrics`
    ]

    static func sources(_ module: String) throws -> [(path: String, text: String)] {
        let base = root.appendingPathComponent("Sources/\(module)")
        guard let walker = FileManager.default.enumerator(atPath: base.path) else { return [] }
        return try walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map { relative in
            (relative, try String(contentsOf: base.appendingPathComponent(relative), encoding: .utf8))
        }
    }

    @Test func onlyTheStoresImportTheSQLiteLayer() throws {
        let files = try ["XizorDomain", "XizorAPI"].flatMap { module in
            try Self.sources(module).map { (path: "\(module)/\($0.path)", text: $0.text) }
        }
        #expect(files.count > 100, "the source tree was found")
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
        for module in ["XizorDomain", "XizorAPI", "XizorCLI"] {
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

    /// A capability is one folder name in each layer: its models, store protocol and service in the
    /// domain, its routes and tools on the surface, its store in XizorStores.
    @Test func everyAggregateGoesByOneFolderNameInEachLayer() throws {
        let domain = Set(try Self.sources("XizorDomain").map(\.path))
        let surface = Set(try Self.sources("XizorAPI").map(\.path))
        let stores = Set(try Self.sources("XizorStores").map(\.path))
        for (folder, inDomain, onSurface, store) in [
            ("Apps", ["AppStore", "KeyService"], ["AppRoutes"], ["SQLAppStore"]),
            ("Paywalls", ["PaywallStore", "PaywallService"], ["PaywallRoutes", "PaywallTools"], ["SQLPaywallStore"]),
            (
                "Placements", ["PlacementStore", "PlacementService"], ["PlacementRoutes", "PlacementTools"],
                ["SQLPlacementStore"]
            ),
            (
                "Experiments", ["ExperimentStore", "ExperimentService"], ["ExperimentRoutes", "ExperimentTools"],
                ["SQLExperimentStore"]
            ),
            (
                "Events", ["EventStore", "EventService", "AnalyticsGate"], ["EventRoutes", "AnalyticsTools"],
                ["SQLEventStore", "EventJSON", "EventIngest"]
            ),
            ("Timers", ["TimerStore", "TimerService"], ["TimerRoutes"], ["SQLTimerStore"]),
        ] {
            for file in inDomain {
                #expect(domain.contains("\(folder)/\(file).swift"), "XizorDomain/\(folder)/\(file)")
            }
            for file in onSurface { #expect(surface.contains("\(folder)/\(file).swift"), "XizorAPI/\(folder)/\(file)") }
            for file in store { #expect(stores.contains("\(file).swift"), "XizorStores/\(file).swift") }
        }
        let misplaced = (domain.union(surface)).filter { ($0 as NSString).lastPathComponent.hasPrefix("SQL") }
        #expect(misplaced.isEmpty, "a store outside XizorStores: \(misplaced)")
        let routesInDomain = domain.filter { $0.hasSuffix("Routes.swift") || $0.hasSuffix("Tools.swift") }
        #expect(routesInDomain.isEmpty, "a surface in the domain: \(routesInDomain)")
    }
}
