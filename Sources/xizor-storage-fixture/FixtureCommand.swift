import Foundation
import Storage

/// `xizor-storage-fixture crash-writer DB` and `xizor-storage-fixture bench DIR [--quick] [--no-durable | --durable-only N]`.
enum FixtureCommand {
    static let usage = """
        usage: xizor-storage-fixture crash-writer DB   commit numbered rows forever, printing each after commit
               xizor-storage-fixture bench DIR [--quick] [--no-durable | --durable-only N]
                                                  storage benchmark, one JSON line per workload
        """

    static func run(_ arguments: [String]) -> Int32 {
        do {
            switch arguments.first {
            case "crash-writer" where arguments.count == 2:
                try CrashWriter.run(path: arguments[1])
                return 0
            case "bench" where arguments.count >= 2:
                try StorageBenchmark.run(directory: arguments[1], options: .init(Array(arguments.dropFirst(2))))
                return 0
            default:
                FileHandle.standardError.write(Data((usage + "\n").utf8))
                return 2
            }
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return 1
        }
    }
}

/// Commits rows numbered 1, 2, 3, ... each in its own durable transaction and prints each number
/// only after `write` returned, so a test that kills the process knows what must have survived.
enum CrashWriter {
    static func run(path: String) throws {
        let pool = try DatabasePool(path: path, configuration: DatabaseConfiguration(readConnections: 1))
        try pool.write { db in
            try db.execute("CREATE TABLE IF NOT EXISTS crash (n INTEGER PRIMARY KEY, payload TEXT NOT NULL) STRICT")
        }
        var n: Int64 = try pool.read { db in try db.queryOne("SELECT coalesce(max(n), 0) FROM crash")?.get(0) ?? 0 }
        let payload = String(repeating: "x", count: 200)
        while true {
            n += 1
            let value = n
            try pool.write { db in
                try db.execute("INSERT INTO crash (n, payload) VALUES (?, ?)", [value, payload])
            }
            // One write(2) per line, unbuffered: the number is out before the next commit starts.
            FileHandle.standardOutput.write(Data("\(value)\n".utf8))
        }
    }
}
