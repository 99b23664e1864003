import Foundation
import XizorAPI
import XizorDomain
import XizorLog

extension Commands {
    /// `xizor users create EMAIL [--admin] [--password-stdin]`: a person's account, written to the
    /// database directly (the first instance admin of a fresh instance has no one to ask). The
    /// password is read from standard input, or generated and printed this once.
    static let users = Subcommand(
        spec: CommandSpec(
            name: "users",
            summary:
                "Create a person's account: 'xizor users create EMAIL [--admin] [--password-stdin]' prints {id, email, instanceAdmin, password}.",
            positionals: "create EMAIL", minPositionals: 2, maxPositionals: 2,
            options: Commands.dataDirectoryOptions + [
                .init("admin", help: "an instance admin: creates apps and users, opens every app"),
                .init("password-stdin", help: "read the password (at least 12 characters) from standard input"),
            ])
    ) { arguments in
        guard arguments.positionals[0] == "create" else { throw UsageError("use 'xizor users create EMAIL'") }
        var password = UsersCommand.generatedPassword()
        var generated = true
        if arguments.flag("password-stdin") {
            let input = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            password = String(input.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
            generated = false
        }
        let environment = try CommandEnvironment(arguments)
        let services = try environment.openServices()
        let user: User
        do {
            user = try WriteActor.$current.withValue(.cli) {
                try services.users.create([
                    "email": .string(arguments.positionals[1]), "password": .string(password),
                    "instanceAdmin": .bool(arguments.flag("admin")),
                ])
            }
        } catch let error as ServiceError {
            throw CommandFailure(error.errors.first?.message ?? error.detail)
        }
        var fields: [(String, LogValue)] = [
            ("id", .string(user.id)), ("email", .string(user.email)), ("instanceAdmin", .bool(user.instanceAdmin)),
        ]
        if generated { fields.append(("password", .string(password))) }
        printJSONLine(fields)
        return .success
    }
}

enum UsersCommand {
    /// 20 base-62 characters (119 bits): a password a person pastes once and then changes.
    static func generatedPassword() -> String {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")
        return String((0..<20).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }

    /// The account of `email`, made with a generated password (returned) when there is none yet.
    static func createOrFind(_ services: XizorServices, email: String, instanceAdmin: Bool) throws -> (User, String?) {
        let password = generatedPassword()
        do {
            return (try services.users.create(email: email, password: password, instanceAdmin: instanceAdmin), password)
        } catch let error as ServiceError where error.code == "email_taken" {
            guard let existing = try services.users.find(email: email) else { throw error }
            return (existing, nil)
        }
    }
}
