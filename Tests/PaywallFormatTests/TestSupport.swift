import PaywallFormat
import Testing

/// Shared helpers: a small valid base document to mutate, path-based edits, and the fixture folder.
enum Support {
    static let fixturesDirectory: String = {
        // Tests/PaywallFormatTests/TestSupport.swift → Tests/Fixtures
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2)
        return parts.joined(separator: "/") + "/Fixtures"
    }()

    static func fixture(_ name: String) throws -> JSONValue {
        let path = fixturesDirectory + "/" + name
        return try JSONParser().parse(try readFile(path))
    }

    static let baseSource = #"""
        {
          "schemaVersion": 1, "id": "pw_test", "name": "Test", "locales": ["en", "de"], "defaultLocale": "en",
          "theme": {
            "colors": { "bg": "#070707", "text": "#FFFFFF", "accent": "#FFFFFF", "onAccent": "#070707" },
            "fonts": { "heading": { "family": "Inter", "weight": 700 } },
            "radii": { "card": 16 }
          },
          "products": [
            { "slot": "monthly", "storeProductId": "com.app.pro.monthly" },
            { "slot": "yearly", "storeProductId": "com.app.pro.yearly" }
          ],
          "settings": { "dismissable": true, "safeArea": "all", "background": { "kind": "color", "color": "$bg" } },
          "root": {
            "type": "stack", "direction": "vertical",
            "children": [
              { "type": "text", "text": { "en": "Go **Pro**", "de": "**Pro** holen" },
                "style": { "color": "$text", "borderRadius": "$card", "font": { "family": "$heading", "size": 34 } } },
              { "type": "purchase_button", "productSlot": "monthly", "label": { "en": "{{product.price}}", "de": "{{product.price}}" } },
              { "type": "button", "label": { "en": "Close", "de": "Schließen" }, "action": { "type": "close" } },
              { "type": "timer", "id": "t1", "kind": "duration", "durationSeconds": 60,
                "label": { "en": "{{timer.remaining}}", "de": "{{timer.remaining}}" } },
              { "type": "image", "src": "https://cdn.xizor.dev/a.png" },
              { "type": "footer_links", "privacyUrl": "https://example.com/privacy", "termsUrl": "https://example.com/terms" }
            ]
          }
        }
        """#

    static var base: JSONValue {
        get throws { try JSONValue(parsing: baseSource) }
    }

    /// The base document with `value` set at `path` (nil removes the member).
    static func base(setting path: String, to value: JSONValue?) throws -> JSONValue {
        var doc = try base
        try edit(&doc, path, value)
        return doc
    }

    static func edit(_ doc: inout JSONValue, _ pathText: String, _ value: JSONValue?) throws {
        let path = try #require(JSONPath(parsing: pathText))
        if let value {
            let done = doc.set(value, at: path)
            #expect(done, "cannot set \(pathText)")
        } else {
            let parent = JSONPath(Array(path.components.dropLast()))
            guard case .key(let key)? = path.components.last, var container = doc[path: parent] else {
                Issue.record("cannot remove \(pathText)")
                return
            }
            container[key] = nil
            doc.set(container, at: parent)
        }
    }

    static func pairs(_ issues: [ValidationIssue]) -> [String] { issues.map { "\($0.path) \($0.code)" } }
}

struct FileReadError: Error {}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a whole file (tests only; the library itself never does I/O).
func readFile(_ path: String) throws -> [UInt8] {
    guard let file = fopen(path, "rb") else { throw FileReadError() }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&chunk, 1, chunk.count, file)
        if n <= 0 { break }
        bytes.append(contentsOf: chunk[0..<n])
    }
    return bytes
}
