#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A subcommand of `xizor`: its spec and what it does. Returns the process exit code.
struct Subcommand: Sendable {
    let spec: CommandSpec
    let run: @Sendable (ParsedArguments) throws -> Int32
}

/// A failure a command reports on standard error with a non-zero exit code.
struct CommandFailure: Error, CustomStringConvertible {
    let message: String
    let exitCode: Int32
    init(_ message: String, exitCode: Int32 = 1) {
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
        var text = "xizor \(version): the server behind server-hosted mobile paywalls.\n\nUsage: xizor COMMAND [OPTIONS]\n\nCommands:\n"
        for command in subcommands {
            text += "  " + command.spec.name.padding(toLength: 12, withPad: " ", startingAt: 0) + command.spec.summary + "\n"
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
            return 64
        }
        if name == "--help" || name == "-h" || name == "help" {
            print(overview, terminator: "")
            return 0
        }
        if name == "--version" { return run(["version"]) }
        guard let command = subcommands.first(where: { $0.spec.name == name }) else {
            writeStandardError("xizor: unknown command '\(name)'\n\n" + overview)
            return 64
        }
        do {
            let parsed = try ArgumentParser.parse(Array(arguments.dropFirst()), spec: command.spec)
            if parsed.helpRequested {
                print(command.spec.help, terminator: "")
                return 0
            }
            return try command.run(parsed)
        } catch let error as UsageError {
            writeStandardError("xizor \(name): \(error.message)\nUsage: \(command.spec.usage)\n")
            return 64
        } catch let failure as CommandFailure {
            writeStandardError("xizor \(name): \(failure.message)\n")
            return failure.exitCode
        } catch {
            writeStandardError("xizor \(name): \(error)\n")
            return 1
        }
    }

    static func writeStandardError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
