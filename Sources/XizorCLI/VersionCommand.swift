extension Commands {
    static let version = Subcommand(
        spec: CommandSpec(name: "version", summary: "Print the version.")
    ) { _ in
        print("xizor \(CommandLineInterface.version)")
        return .success
    }
}
