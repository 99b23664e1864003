/// Namespace for the subcommands; each lives in its own file as a static `Subcommand`.
enum Commands {}
