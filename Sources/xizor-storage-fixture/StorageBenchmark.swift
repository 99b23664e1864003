import Foundation
import Storage

/// The storage benchmark's Swift side; `bench/storage.bench.sh` runs the same workloads through
/// Python's sqlite3 on the same file system and compares. Each workload prints one JSON line.
enum StorageBenchmark {
    static let insertSQL = "INSERT INTO bench (id, name, amount) VALUES (?, ?, ?)"
    static let readSQL = "SELECT name, amount FROM bench WHERE id = ?"

    /// What one invocation measures: everything, or only the durable single-row inserts (the bench
    /// script alternates many short durable runs with Python's, since fsync latency drifts).
    struct Options {
        var quick = false
        var durableOnlyRows: Int?
        var skipDurable = false

        init(_ arguments: [String]) {
            var rest = arguments[...]
            while let argument = rest.popFirst() {
                switch argument {
                case "--quick": quick = true
                case "--no-durable": skipDurable = true
                case "--durable-only": durableOnlyRows = rest.popFirst().flatMap { Int($0) }.map { max(1, $0) }
                default: break
                }
            }
        }
    }

    static func run(directory: String, options: Options) throws {
        let quick = options.quick
        let singleRows = options.durableOnlyRows ?? (options.skipDurable ? 0 : (quick ? 200 : 3_000))
        let batches = quick ? 20 : 200
        let batchSize = 1_000
        let reads = quick ? 20_000 : 300_000

        let path = directory + "/swift-bench.sqlite"
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        let pool = try DatabasePool(
            path: path, configuration: DatabaseConfiguration(synchronous: .full, readConnections: 1))
        defer { pool.close() }
        try pool.write { db in
            try db.execute("CREATE TABLE bench (id INTEGER PRIMARY KEY, name TEXT NOT NULL, amount INTEGER NOT NULL)")
        }

        var id: Int64 = 0
        var start = now()
        for _ in 0..<singleRows {
            id += 1
            let rowID = id
            try pool.write { db in try db.execute(insertSQL, [rowID, "name-\(rowID)", rowID * 3]) }
        }
        if singleRows > 0 { report("single_insert", ops: singleRows, seconds: now() - start) }
        if options.durableOnlyRows != nil { return }

        start = now()
        for _ in 0..<batches {
            let first = id + 1
            try pool.write { db in
                for rowID in first..<(first + Int64(batchSize)) {
                    try db.execute(insertSQL, [rowID, "name-\(rowID)", rowID * 3])
                }
            }
            id += Int64(batchSize)
        }
        report("batch_insert", ops: batches * batchSize, seconds: now() - start)

        let total = id
        start = now()
        let checksum: Int64 = try pool.read { db in
            let statement = try db.cachedStatement(readSQL)
            var sum: Int64 = 0
            for i in 0..<Int64(reads) {
                try statement.bindInt64((i &* 7919) % total + 1, at: 1)
                guard try statement.step() else { throw BenchmarkError.missingRow }
                let name = statement.string(0)
                sum &+= statement.int64(1) &+ Int64(name.utf8.count)
                statement.reset()
            }
            return sum
        }
        report("point_read", ops: reads, seconds: now() - start, extra: "\"checksum\":\(checksum)")

        try singleInsertsWithoutFsync(path: directory + "/swift-bench-nosync.sqlite", rows: quick ? 2_000 : 20_000)
    }

    /// The same single-row transactions with synchronous=OFF: no fsync, so what is left is the
    /// cost of the layer itself (queue hop, BEGIN/INSERT/COMMIT, bindings).
    static func singleInsertsWithoutFsync(path: String, rows: Int) throws {
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        let pool = try DatabasePool(
            path: path, configuration: DatabaseConfiguration(synchronous: .off, readConnections: 1))
        defer {
            pool.close()
            for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        }
        try pool.write { db in
            try db.execute("CREATE TABLE bench (id INTEGER PRIMARY KEY, name TEXT NOT NULL, amount INTEGER NOT NULL)")
        }
        let start = now()
        for rowID in 1...Int64(rows) {
            try pool.write { db in try db.execute(insertSQL, [rowID, "name-\(rowID)", rowID * 3]) }
        }
        report("single_insert_nosync", ops: rows, seconds: now() - start)
    }

    enum BenchmarkError: Error { case missingRow }

    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    static func report(_ name: String, ops: Int, seconds: Double, extra: String? = nil) {
        let rate = Double(ops) / seconds
        var line =
            "{\"impl\":\"swift\",\"workload\":\"\(name)\",\"ops\":\(ops),\"seconds\":\(String(format: "%.4f", seconds)),\"per_second\":\(String(format: "%.1f", rate))"
        if let extra { line += "," + extra }
        FileHandle.standardOutput.write(Data((line + "}\n").utf8))
    }
}
