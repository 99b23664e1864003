import Foundation
import Testing

@testable import XizorAPI
@testable import XizorConsole
@testable import XizorDomain

/// The console's embedding and its path rule (the pages themselves: Tests/e2e/test_console.py).
@Suite struct ConsoleTests {
    /// The binary serves what Sources/XizorConsole/Site holds: `make embed` was run after the last edit.
    @Test func theEmbeddedFilesAreTheSiteFiles() throws {
        let site = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Sources/XizorConsole/Site")
        let names = try FileManager.default.contentsOfDirectory(atPath: site.path)
            .filter { [".html", ".js", ".css", ".svg"].contains(where: $0.hasSuffix) }.sorted()
        #expect(names == EmbeddedConsole.files.keys.sorted(), "run make embed")
        for name in names {
            let bytes = try Data(contentsOf: site.appendingPathComponent(name))
            #expect(Data(base64Encoded: EmbeddedConsole.files[name] ?? "") == bytes, "\(name) changed since make embed")
        }
    }

    @Test func thePageNamesItsVersionedAssetsAndEveryAssetHasAType() throws {
        let console = try ConsoleSite(basePath: "/admin/ui")
        let page = String(decoding: console.index.bytes, as: UTF8.self)
        #expect(!page.contains("{{"), "every placeholder filled")
        for name in ["app.js", "console.css", "icon.svg"] {
            #expect(page.contains("/admin/ui/v/\(console.version)/\(name)"))
            #expect(console.asset(version: console.version, name: name) != nil)
        }
        #expect(console.asset(version: "0000000000000000", name: "app.js") == nil)
        #expect(console.assets.values.allSatisfy { $0.etag.hasPrefix("\"") && $0.contentType.contains("/") })
        #expect(!ConsoleSite.contentSecurityPolicy.contains("unsafe"))
    }

    @Test(arguments: [
        ("/console", true), ("/admin/ui", true), ("/a-b_c/d1", true), ("/", false), ("console", false),
        ("/console/", false), ("/v1", false), ("/v1/console", false), ("/mcp", false), ("/Console", false),
        ("/con sole", false), ("//console", false),
    ])
    func consolePaths(path: String, valid: Bool) {
        #expect(ConsolePath.isValid(path) == valid, "\(path)")
    }
}
