/// What a subcommand accepts: named options with a value (`--port 8080`, `--port=8080`), boolean
/// flags (`--check`) and positional arguments. One small parser serves every subcommand.
public struct CommandSpec: Sendable {
    public struct Option: Sendable {
        public let name: String
        public let valueName: String?  // nil for a boolean flag
        public let help: String
        public init(_ name: String, value: String? = nil, help: String) {
            self.name = name
            self.valueName = value
            self.help = help
        }
    }

    public let name: String
    public let summary: String
    public let positionals: String  // usage text for positionals, e.g. "FILE…"
    public let minPositionals: Int
    public let maxPositionals: Int?  // nil = unbounded
    public let options: [Option]

    public init(
        name: String, summary: String, positionals: String = "", minPositionals: Int = 0,
        maxPositionals: Int? = 0, options: [Option] = []
    ) {
        self.name = name
        self.summary = summary
        self.positionals = positionals
        self.minPositionals = minPositionals
        self.maxPositionals = maxPositionals
        self.options = options
    }

    public var usage: String {
        var line = "xizor \(name)"
        for option in options {
            line += option.valueName.map { " [--\(option.name) \($0)]" } ?? " [--\(option.name)]"
        }
        if !positionals.isEmpty { line += " \(positionals)" }
        return line
    }

    public var help: String {
        var text = "\(summary)\n\nUsage: \(usage)\n"
        if !options.isEmpty {
            text += "\nOptions:\n"
            for option in options {
                let left = "--\(option.name)" + (option.valueName.map { " \($0)" } ?? "")
                text += "  " + left.padding(toLength: max(left.count, 24)) + "  \(option.help)\n"
            }
        }
        return text
    }
}

/// The parsed arguments of one subcommand.
public struct ParsedArguments: Sendable, Equatable {
    public var values: [String: String] = [:]
    public var flags: Set<String> = []
    public var positionals: [String] = []
    public var helpRequested = false

    public func value(_ name: String) -> String? { values[name] }
    public func flag(_ name: String) -> Bool { flags.contains(name) }
}

/// A usage error; the CLI prints it with the command's usage and exits 64 (EX_USAGE).
public struct UsageError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

public enum ArgumentParser {
    public static func parse(_ arguments: [String], spec: CommandSpec) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            if argument == "--help" || argument == "-h" {
                parsed.helpRequested = true
                continue
            }
            guard argument.hasPrefix("--") else { throw UsageError("unknown option '\(argument)'") }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let option = spec.options.first(where: { $0.name == name }) else {
                throw UsageError("unknown option '--\(name)'")
            }
            if option.valueName == nil {
                if inlineValue != nil { throw UsageError("option '--\(name)' takes no value") }
                parsed.flags.insert(name)
            } else if let inlineValue {
                parsed.values[name] = inlineValue
            } else {
                guard index < arguments.count else { throw UsageError("option '--\(name)' needs a value") }
                parsed.values[name] = arguments[index]
                index += 1
            }
        }
        if parsed.helpRequested { return parsed }
        if parsed.positionals.count < spec.minPositionals {
            throw UsageError("missing argument \(spec.positionals)")
        }
        if let max = spec.maxPositionals, parsed.positionals.count > max {
            throw UsageError("unexpected argument '\(parsed.positionals[max])'")
        }
        return parsed
    }
}

extension String {
    fileprivate func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
