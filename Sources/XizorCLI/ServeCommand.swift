extension Commands {
    static let serve = Subcommand(
        spec: CommandSpec(name: "serve", summary: "Serve the API.", options: Commands.commonServerOptions)
    ) { _ in
        throw CommandFailure("not implemented yet")
    }

    static let commonServerOptions: [CommandSpec.Option] = [
        .init("config", value: "FILE", help: "configuration file (default Config/xizor.json)"),
        .init("host", value: "H", help: "address to bind (XIZOR_HOST)"),
        .init("port", value: "P", help: "port to bind; 0 takes a free one (XIZOR_PORT)"),
        .init("data-dir", value: "DIR", help: "data directory holding xizor.sqlite (XIZOR_DATA_DIR)"),
    ]
}
