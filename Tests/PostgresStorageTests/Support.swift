import Foundation
import PostgresStorage

/// A database of its own on the throwaway cluster `Tests/postgres/with-cluster.sh` starts (`make
/// test` runs every Swift test inside it). Without the cluster these tests fail, saying so: a
/// PostgreSQL test that quietly passes without PostgreSQL proves nothing.
struct TestDatabase {
    let url: String
    let name: String
    private let server: String

    init() throws {
        guard let server = ProcessInfo.processInfo.environment["XIZOR_TEST_POSTGRES_URL"] else {
            throw MissingCluster()
        }
        self.server = server
        name = "xizor_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try PGConnection(url: server)
        defer { admin.close() }
        try admin.executeScript("CREATE DATABASE \(name)")
        // In a libpq connection string a repeated keyword's last value wins.
        url = server + " dbname=\(name)"
    }

    func drop() {
        guard let admin = try? PGConnection(url: server) else { return }
        try? admin.executeScript("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        admin.close()
    }
}

struct MissingCluster: Error, CustomStringConvertible {
    var description: String {
        "XIZOR_TEST_POSTGRES_URL is not set: run the tests with `make test` or Tests/postgres/with-cluster.sh swift test"
    }
}
