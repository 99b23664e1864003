extension Commands {
    static let migrate = Subcommand(
        spec: CommandSpec(
            name: "migrate", summary: "Apply pending migrations from the migrations folder.",
            options: Commands.dataDirectoryOptions)
    ) { arguments in
        let environment = try CommandEnvironment(arguments)
        let (store, applied) = try environment.openStore(migrate: true)
        defer { store.close() }
        if applied.isEmpty {
            print("database \(environment.storageDescription) is up to date")
        } else {
            for name in applied { print("applied \(name)") }
        }
        return .success
    }
}
