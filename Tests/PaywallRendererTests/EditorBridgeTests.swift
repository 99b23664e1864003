import Digest
import Foundation
import PaywallFormat
import Testing

@testable import PaywallRenderer

/// Previews name each element's node (`data-xz-path`, the JSON path the editor uses) and carry the
/// editor bridge, allowed by its hash; production pages carry neither.
@Suite struct EditorBridgeTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/PaywallRenderer/Runtime/editor-bridge.js")

    @Test func theEmbeddedBridgeIsTheFileAndItsHashTheScripts() throws {
        let text = try String(contentsOf: Self.file, encoding: .utf8)
        #expect(RuntimeScript.editorBridge + "\n" == text, "editor-bridge.js changed since make embed")
        #expect(
            RuntimeScript.editorBridgeHash
                == "sha256-" + Base64.encode(SHA256.hash(Array(RuntimeScript.editorBridge.utf8))))
    }

    /// Every node path of the cinematic template (nested stacks, a selector's option) appears on an element of its preview, and nothing else is named.
    @Test func previewElementsNameTheirNodes() throws {
        let document = try #require(try PaywallTemplates.document(named: "cinematic"))
        let page = try PaywallRenderer.render(document, options: RenderOptions(mode: .preview))
        let named = Set(Self.paths(in: String(decoding: page.html, as: UTF8.self)))
        var expected = Set<String>()
        Self.collect(document["root"], path: "$.root", into: &expected)
        #expect(!expected.isEmpty)
        #expect(named == expected)
        #expect(
            String(decoding: page.html, as: UTF8.self).contains("<script>" + RuntimeScript.editorBridge + "</script>"))
        #expect(page.contentSecurityPolicy.contains("'\(RuntimeScript.editorBridgeHash)'"))
    }

    @Test func productionPagesNameNothingAndCarryNoBridge() throws {
        let document = try #require(try PaywallTemplates.document(named: "cinematic"))
        let page = try PaywallRenderer.render(document)
        let html = String(decoding: page.html, as: UTF8.self)
        #expect(!html.contains("data-xz-path"))
        #expect(!html.contains(RuntimeScript.editorBridge))
        #expect(!page.contentSecurityPolicy.contains(RuntimeScript.editorBridgeHash))
    }

    /// A node whose type the reader does not know is shown by its fallback, named by the fallback's path.
    @Test func aFallbackIsNamedByItsOwnPath() throws {
        var document = try #require(try PaywallTemplates.document(named: "clean"))
        let unknown: JSONValue = [
            "type": "hologram", "fallback": ["type": "text", "text": ["en": "Plain"]],
        ]
        document["root"] = ["type": "stack", "direction": "vertical", "children": [unknown]]
        let page = try PaywallRenderer.render(document, options: RenderOptions(mode: .preview))
        #expect(
            Self.paths(in: String(decoding: page.html, as: UTF8.self)) == ["$.root", "$.root.children[0].fallback"])
    }

    static func paths(in html: String) -> [String] {
        html.components(separatedBy: "data-xz-path=\"").dropFirst().compactMap { $0.split(separator: "\"").first }
            .map(String.init)
    }

    /// The JSON paths of the nodes a preview renders: children, carousel pages, a selector's option, a
    /// known node's fallback is not rendered (only an unknown node's is).
    static func collect(_ node: JSONValue?, path: String, into paths: inout Set<String>) {
        guard let node, node.objectValue != nil else { return }
        paths.insert(path)
        for key in ["children", "pages"] {
            for (i, child) in (node[key]?.arrayValue ?? []).enumerated() {
                collect(child, path: "\(path).\(key)[\(i)]", into: &paths)
            }
        }
        if let option = node["option"] { collect(option, path: "\(path).option", into: &paths) }
    }
}
