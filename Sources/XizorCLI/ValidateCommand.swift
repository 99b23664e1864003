import Foundation
import PaywallFormat

extension Commands {
    static let validate = Subcommand(
        spec: CommandSpec(
            name: "validate", summary: "Validate paywall documents (errors with paths; exit 1 if any is invalid).",
            positionals: "FILE…", minPositionals: 1, maxPositionals: nil,
            options: [.init("json", help: "print one JSON result per file instead of text")])
    ) { arguments in
        var anyInvalid = false
        var results: [JSONValue] = []
        for file in arguments.positionals {
            let outcome = validateFile(file)
            if !outcome.ok { anyInvalid = true }
            if arguments.flag("json") { results.append(outcome.json) } else { print(outcome.text, terminator: "") }
        }
        if arguments.flag("json") { print(JSONValue.array(results).prettyString, terminator: "") }
        return anyInvalid ? .failure : .success
    }

    struct FileValidation {
        var file: String
        var ok: Bool
        var errors: [ValidationIssue]
        var warnings: [ValidationIssue]

        var json: JSONValue {
            [
                "file": .string(file), "ok": .bool(ok), "errors": .array(errors.map(\.json)),
                "warnings": .array(warnings.map(\.json)),
            ]
        }

        var text: String {
            var out = "\(file): " + (ok ? "valid" : "invalid, \(errors.count) error\(errors.count == 1 ? "" : "s")")
            if !warnings.isEmpty { out += ", \(warnings.count) warning\(warnings.count == 1 ? "" : "s")" }
            out += "\n"
            for e in errors { out += "  error    \(e.path): \(e.message) [\(e.code)]\n" }
            for w in warnings { out += "  warning  \(w.path): \(w.message) [\(w.code)]\n" }
            return out
        }
    }

    static func validateFile(_ file: String) -> FileValidation {
        let bytes: [UInt8]
        if file == "-" {
            bytes = Array(FileHandle.standardInput.readDataToEndOfFile())
        } else {
            guard let data = FileManager.default.contents(atPath: file) else {
                return FileValidation(
                    file: file, ok: false,
                    errors: [ValidationIssue(path: "$", message: "cannot read file", code: "unreadable_file")],
                    warnings: [])
            }
            bytes = Array(data)
        }
        do {
            let document = try JSONParser().parse(bytes)
            let result = PaywallValidator.validate(document)
            return FileValidation(file: file, ok: result.isValid, errors: result.errors, warnings: result.warnings)
        } catch {
            let issue = ValidationIssue(
                path: "$", message: "invalid JSON: \(error.message) at line \(error.line), column \(error.column)",
                code: error.code.rawValue)
            return FileValidation(file: file, ok: false, errors: [issue], warnings: [])
        }
    }
}
