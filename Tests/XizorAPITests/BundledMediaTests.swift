import Foundation
import PaywallFormat
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// The templates' media embedded in the binary are the files in `Sources/XizorDomain/Assets/Bundled`
/// (`make embed` was run after the last change), each decoding to the type its name says, and
/// every media URL the templates name is one of them.
@Suite struct BundledMediaTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/XizorDomain/Assets/Bundled")

    @Test func theEmbeddedFilesAreTheBundledFiles() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
            .filter { ["png", "jpg", "mp4", "json"].contains(($0 as NSString).pathExtension) }.sorted()
        #expect(files.count == 7)
        #expect(BundledMedia.names == files, "run `make embed` after changing a file in Bundled/")
        for name in files {
            let bytes = try [UInt8](Data(contentsOf: Self.folder.appendingPathComponent(name)))
            let embedded = try #require(BundledMedia.file(named: name))
            #expect(embedded.bytes == bytes, "\(name) differs from its embedded copy")
            #expect(name.hasSuffix("." + embedded.type.fileExtension))
        }
    }

    @Test func everyTemplateMediaURLIsABundledFile() throws {
        let prefix = ServerMedia.origin + ServerMedia.templatesPath
        var named: Set<String> = []
        for template in PaywallTemplates.names {
            let text = String(
                decoding: JSONSerializer.canonicalBytes(try #require(try PaywallTemplates.document(named: template))),
                as: UTF8.self)
            var rest = text[...]
            while let range = rest.range(of: prefix) {
                let after = rest[range.upperBound...]
                named.insert(String(after.prefix { $0 != "\"" }))
                rest = after
            }
        }
        #expect(named.count == 7 && named.allSatisfy { BundledMedia.file(named: $0) != nil }, "\(named)")
    }
}
