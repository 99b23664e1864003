import Foundation

/// The templates' media (`Assets/Bundled/`, embedded by `make embed`), decoded once on first use
/// and served at `/v1/assets/templates/{file}` so a fresh install shows complete paywalls offline.
enum BundledMedia {
    struct File: Sendable {
        let type: MediaType
        let sha256: String
        let bytes: [UInt8]
    }

    static func file(named name: String) -> File? { decoded[name] }

    /// File names, for `/v1/diagnostics`-style listings and tests.
    static var names: [String] { decoded.keys.sorted() }

    /// Every embedded file that decodes and sniffs as the type its extension says; a file that
    /// does not is left out (and `BundledMediaTests` fails), never served as something else.
    private static let decoded: [String: File] = {
        var files: [String: File] = [:]
        for (name, entry) in EmbeddedMedia.files {
            guard let data = Data(base64Encoded: entry.base64), let type = MediaType.sniff(Array(data)),
                name.hasSuffix("." + type.fileExtension)
            else { continue }
            files[name] = File(type: type, sha256: entry.sha256, bytes: Array(data))
        }
        return files
    }()
}
