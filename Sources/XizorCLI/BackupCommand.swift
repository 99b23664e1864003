import Foundation
import Storage

extension Commands {
    static let backup = Subcommand(
        spec: CommandSpec(
            name: "backup", summary: "Make a consistent online copy of the database (safe while serve runs).",
            positionals: "OUT", minPositionals: 1, maxPositionals: 1,
            options: Commands.dataDirectoryOptions + [
                .init("check", help: "only run PRAGMA integrity_check on OUT (a database file)")
            ])
    ) { arguments in
        let out = arguments.positionals[0]
        if arguments.flag("check") { return try integrityCheck(out) }
        let environment = try CommandEnvironment(arguments)
        guard environment.configuration[\.storage.driver] == .sqlite else {
            throw CommandFailure(
                "xizor backup copies the SQLite file; back up PostgreSQL with pg_dump or a base backup (docs/operations.md, \"Backup and restore\")"
            )
        }
        let source = environment.configuration.databasePath
        guard FileManager.default.fileExists(atPath: source) else {
            throw CommandFailure("no database at \(source)")
        }
        do { try Backup.copy(from: source, to: out, configuration: environment.databaseConfiguration) } catch {
            throw CommandFailure("backup failed: \(error)")
        }
        let status = try integrityCheck(out)
        return status
    }

    static func integrityCheck(_ path: String) throws -> ExitStatus {
        guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("no database at \(path)") }
        let problems: [String]
        do { problems = try Backup.integrityCheck(path: path) } catch {
            throw CommandFailure("integrity check failed: \(error)")
        }
        if problems.isEmpty {
            printJSONLine([("database", .string(path)), ("integrity", "ok")])
            return .success
        }
        printJSONLine([("database", .string(path)), ("integrity", .string(problems.joined(separator: "; ")))])
        return .failure
    }
}
