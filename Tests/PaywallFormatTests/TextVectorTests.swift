import PaywallFormat
import Testing

/// Runs the shared vector files in Tests/Fixtures (the page's JavaScript runs the very same files).
@Suite struct TextVectorTests {
    static func cases(_ file: String) throws -> [JSONValue] {
        let cases = try #require(try Support.fixture(file)["cases"]?.arrayValue)
        #expect(cases.count >= 8)
        return cases
    }

    @Test func pickLocalizedTextVectors() throws {
        for c in try Self.cases("pickLocalizedText.json") {
            let text = try #require(c["text"]?.objectValue).compactMapValues(\.stringValue)
            let got = pickLocalizedText(
                text, locale: try #require(c["locale"]?.stringValue),
                defaultLocale: try #require(c["defaultLocale"]?.stringValue))
            #expect(got.map(JSONValue.string) ?? .null == c["expected"], "\(c["name"]?.stringValue ?? "")")
        }
    }

    @Test func resolveTextVectors() throws {
        for c in try Self.cases("resolveText.json") {
            let policy = try #require(MissingVariablePolicy(rawValue: c["onMissing"]?.stringValue ?? ""))
            let got = resolveText(
                try #require(c["template"]?.stringValue), context: c["context"] ?? [:], onMissing: policy)
            #expect(.string(got) == c["expected"], "\(c["name"]?.stringValue ?? "")")
        }
    }

    @Test func parseMarkdownLiteVectors() throws {
        for c in try Self.cases("parseMarkdownLite.json") {
            let got = parseMarkdownLite(try #require(c["input"]?.stringValue))
            #expect(.array(got.map(\.json)) == c["expected"], "\(c["name"]?.stringValue ?? "")")
        }
    }

    @Test func extractVariablesVectors() throws {
        for c in try Self.cases("extractVariables.json") {
            let got = extractVariables(try #require(c["template"]?.stringValue))
            #expect(.array(got.map(JSONValue.string)) == c["expected"], "\(c["name"]?.stringValue ?? "")")
        }
    }

    @Test func resolveTextDefaultsToKeep() {
        #expect(resolveText("{{context.x}}", context: [:]) == "{{context.x}}")
    }
}
