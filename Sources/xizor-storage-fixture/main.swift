// Fixture for the storage tests and benchmark; see FixtureCommand.swift.
import Foundation

exit(FixtureCommand.run(Array(CommandLine.arguments.dropFirst())))
