// Serves fixture routes for the HTTP live tests and the benchmark; see FixtureRoutes.swift.
FixtureMain.run(arguments: Array(CommandLine.arguments.dropFirst()))
