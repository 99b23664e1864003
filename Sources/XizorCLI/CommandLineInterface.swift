import Foundation
import XizorAPI
import XizorDomain

#if canImport(Glibc)
    import Glibc
#endif

/// Every exit status of `xizor` (docs/operations.md lists them; scripts and orchestrators branch on
/// them). The BSD `sysexits.h` values where one fits.
enum ExitStatus: Int32, CaseIterable, Sendable {
    /// Done; for `healthcheck`, the server answered 200.
    case success = 0
    /// The command failed: invalid documents (`validate`), a server that does not answer 200
    /// (`healthcheck`), a failed backup check, a port in use, a migration the database refuses.
    case failure = 1
    /// The data directory's database was deleted, emptied or damaged after it was initialised: the
    /// server refuses to start rather than serve an empty or broken database (docs/operations.md).
    case dataDirectoryRefused = 3
    /// The command line is wrong: unknown command or option, missing value (EX_USAGE).
    case usage = 64
    /// The configuration is wrong: unknown key, bad value, contradicting settings (EX_CONFIG).
    /// Nothing has been opened or created.
    case configuration = 78
}

/// A subcommand of `xizor`: its spec and what it does. Returns the process exit status.
struct Subcommand: Sendable {
    let spec: CommandSpec
    let run: @Sendable (ParsedArguments) throws -> ExitStatus
}

/// A failure a command reports on standard error with a non-zero exit status.
struct CommandFailure: Error, CustomStringConvertible {
    let message: String
    let exitCode: ExitStatus
    init(_ message: String, exitCode: ExitStatus = .failure) {
        self.message = message
        self.exitCode = exitCode
    }
    var description: String { message }
}

/// Entry point of the `xizor` binary: dispatches to the subcommands.
public enum CommandLineInterface {
    public static let version = "0.1.0"

    static var subcommands: [Subcommand] {
        [
            Commands.serve,
            Commands.migrate,
            Commands.apps,
            Commands.keys,
            Commands.signingKeys,
            Commands.users,
            Commands.events,
            Commands.demo,
            Commands.backup,
            Commands.config,
            Commands.healthcheck,
            Commands.version,
            Commands.validate, Commands.templates, Commands.schema,
            Commands.render,
        ]
    }

    static var overview: String {
        var text =
            "xizor \(version): the server behind server-hosted mobile paywalls.\n\nUsage: xizor COMMAND [OPTIONS]\n\nCommands:\n"
        // The names' column is as wide as the longest name, plus two spaces: a fixed width would
        // run a name as long as it into its summary (Foundation's padding never leaves a gap).
        let width = (subcommands.map(\.spec.name.count).max() ?? 0) + 2
        for command in subcommands {
            text +=
                "  " + command.spec.name.padding(toLength: width, withPad: " ", startingAt: 0) + command.spec.summary
                + "\n"
        }
        text += "\nRun 'xizor COMMAND --help' for a command's options.\n"
        return text
    }

    public static func main() {
        exit(run(Array(CommandLine.arguments.dropFirst())))
    }

    /// Runs the CLI with `arguments` (without the program name) and returns the exit code.
    public static func run(_ arguments: [String]) -> Int32 {
        guard let name = arguments.first else {
            writeStandardError(overview)
            return ExitStatus.usage.rawValue
        }
        if name == "--help" || name == "-h" || name == "help" {
            print(overview, terminator: "")
            return 0
        }
        if name == "--version" { return run(["version"]) }
        guard let command = subcommands.first(where: { $0.spec.name == name }) else {
            writeStandardError("xizor: unknown command '\(name)'\n\n" + overview)
            return ExitStatus.usage.rawValue
        }
        do {
            let parsed = try ArgumentParser.parse(Array(arguments.dropFirst()), spec: command.spec)
            if parsed.helpRequested {
                print(command.spec.help, terminator: "")
                return 0
            }
            // Every write a command makes is the CLI's in the audit log (a server's requests set their own).
            return try WriteActor.$current.withValue(.cli) { try command.run(parsed).rawValue }
        } catch let error as UsageError {
            writeStandardError("xizor \(name): \(error.message)\nUsage: \(command.spec.usage)\n")
            return ExitStatus.usage.rawValue
        } catch let failure as CommandFailure {
            writeStandardError("xizor \(name): \(failure.message)\n")
            return failure.exitCode.rawValue
        } catch {
            writeStandardError("xizor \(name): \(error)\n")
            return ExitStatus.failure.rawValue
        }
    }

    static func writeStandardError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
