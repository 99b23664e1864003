extension Commands {
    static let serve = Subcommand(
        spec: CommandSpec(name: "serve", summary: "Serve the API.", options: Commands.configurationOptions)
    ) { _ in
        throw CommandFailure("not implemented yet")
    }
}
