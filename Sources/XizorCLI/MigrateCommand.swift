extension Commands {
    static let migrate = Subcommand(
        spec: CommandSpec(name: "migrate", summary: "Apply pending migrations from the migrations folder.",
                          options: Commands.dataDirectoryOptions)
    ) { arguments in
        let environment = try CommandEnvironment(arguments)
        let (pool, applied) = try environment.openDatabase(migrate: true)
        defer { pool.close() }
        if applied.isEmpty {
            print("database \(environment.configuration.databasePath) is up to date")
        } else {
            for name in applied { print("applied \(name)") }
        }
        return .success
    }
}
