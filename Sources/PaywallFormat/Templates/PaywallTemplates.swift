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

    /// The template as a document, or nil for an unknown name.
    public static func document(named name: String) -> JSONValue? { parsed[name] }

    /// Every template, in `names` order.
    public static var all: [(name: String, document: JSONValue)] {
        names.compactMap { name in parsed[name].map { (name, $0) } }
    }

    /// `{name: document}` for every template (the seed's `paywallTemplatesJson()`).
    public static var json: JSONValue { .object(parsed) }

    private static let parsed: [String: JSONValue] = {
        var result: [String: JSONValue] = [:]
        for name in names {
            if let text = source(named: name), let value = try? JSONValue(parsing: text) { result[name] = value }
        }
        return result
    }()
}
