import Digest
import Foundation
import PaywallFormat
import Testing

@testable import PaywallRenderer

/// The page runtime is a real `.js` file (`Sources/PaywallRenderer/Runtime/runtime.js`), embedded by
/// `make embed` with its CSP hash: the binary carries exactly the file, and the hash is the script's.
@Suite struct RuntimeScriptTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/PaywallRenderer/Runtime/runtime.js")

    @Test func theEmbeddedRuntimeIsTheFile() throws {
        let text = try String(contentsOf: Self.file, encoding: .utf8)
        #expect(RuntimeScript.source + "\n" == text, "runtime.js changed since make embed")
    }

    @Test func itsHashIsTheScriptsAndThePageAllowsIt() throws {
        #expect(RuntimeScript.hash == "sha256-" + Base64.encode(SHA256.hash(Array(RuntimeScript.source.utf8))))
        let clean = try #require(try PaywallTemplates.document(named: "clean"))
        #expect(try PaywallRenderer.render(clean).contentSecurityPolicy.contains("'\(RuntimeScript.hash)'"))
    }
}
