/// The three starter documents the dashboard and `xizor demo` offer. Embedded as source text (no
/// bundle resources) so the binary stays relocatable; each validates with no errors and no warnings.
public enum PaywallTemplates {
    public static let names = ["cinematic", "clean", "lottie_delight"]

    /// The template's JSON text as written (pretty, commented by structure), or nil for an unknown name.
    public static func source(named name: String) -> String? {
        switch name {
        case "cinematic": return cinematicSource
        case "clean": return cleanSource
        case "lottie_delight": return lottieDelightSource
        default: return nil
        }
    }

    /// The template as a document, or nil for an unknown name. A template that does not parse is a
    /// defect of this build, said loudly (`TemplateDefect`), never an unknown name or a shorter list.
    public static func document(named name: String) throws(TemplateDefect) -> JSONValue? {
        guard let result = parsed[name] else { return nil }
        return try result.get()
    }

    /// Every template, in `names` order.
    public static func all() throws(TemplateDefect) -> [(name: String, document: JSONValue)] {
        try names.map { name throws(TemplateDefect) in
            guard let document = try document(named: name) else {
                throw TemplateDefect(name: name, detail: "it is named but has no source")
            }
            return (name, document)
        }
    }

    private static let parsed: [String: Result<JSONValue, TemplateDefect>] = {
        var result: [String: Result<JSONValue, TemplateDefect>] = [:]
        for name in names {
            guard let text = source(named: name) else { continue }
            do { result[name] = .success(try JSONValue(parsing: text)) } catch {
                result[name] = .failure(TemplateDefect(name: name, detail: "\(error)"))
            }
        }
        return result
    }()
}

/// A built-in template that does not parse: a defect of this build (its source text is compiled in).
public struct TemplateDefect: Error, CustomStringConvertible {
    public let name: String
    public let detail: String
    public var description: String { "the built-in template '\(name)' does not parse: \(detail)" }
}
