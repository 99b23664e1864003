import Digest
import Foundation

/// The console (docs/console.md): HTML, ES modules and CSS written in `Site/`, embedded in the
/// binary at build time (`make embed`). Pure: it only says what is served at which path, with what
/// type, tag and caching; the API layer registers the routes.
///
/// Every asset lives under `BASE/v/VERSION/`, VERSION being a hash of all of them, so asset URLs
/// change whenever any file does and can be cached for a year (`immutable`); relative imports
/// between modules keep working inside the versioned folder. Only the page itself (`BASE/`) is
/// revalidated on every load.
public struct ConsoleSite: Sendable {
    public struct File: Sendable {
        public let bytes: [UInt8]
        public let contentType: String
        /// A strong entity tag: the bytes' SHA-256 (quoted).
        public let etag: String
    }

    /// Where the console is served (`console.path`), without a trailing slash.
    public let basePath: String
    /// The hash of every asset: the versioned folder's name.
    public let version: String
    /// The page, with the versioned asset paths written in.
    public let index: File
    /// Assets by file name (flat: `app.js`, `console.css`, …).
    public let assets: [String: File]

    /// The console's Content-Security-Policy: its own scripts and styles only, API calls to its own
    /// origin, previews in frames of its own origin, no inline code, no plugins, never framed.
    public static let contentSecurityPolicy = [
        "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data: https:",
        "connect-src 'self'", "frame-src 'self'", "font-src 'self'", "base-uri 'none'", "form-action 'none'",
        "frame-ancestors 'none'",
    ].joined(separator: "; ")

    /// The embedded console, or, when `XIZOR_CONSOLE_DIR` names a directory, the files in it read once
    /// now (a developer's edit-and-restart loop on `Sources/XizorConsole/Site` without a build).
    public init(basePath: String) throws {
        if let directory = ProcessInfo.processInfo.environment["XIZOR_CONSOLE_DIR"], !directory.isEmpty {
            try self.init(basePath: basePath, files: try Self.files(in: directory))
        } else {
            var files: [String: [UInt8]] = [:]
            for (name, base64) in EmbeddedConsole.files {
                guard let data = Data(base64Encoded: base64) else { throw ConsoleSiteError.undecodable(name) }
                files[name] = [UInt8](data)
            }
            try self.init(basePath: basePath, files: files)
        }
    }

    static func files(in directory: String) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        let url = URL(fileURLWithPath: directory)
        for name in try FileManager.default.contentsOfDirectory(atPath: directory)
        where name == "index.html" || contentType(of: name) != nil {
            files[name] = [UInt8](try Data(contentsOf: url.appendingPathComponent(name)))
        }
        return files
    }

    init(basePath: String, files: [String: [UInt8]]) throws {
        self.basePath = basePath
        var assets: [String: File] = [:]
        var index: [UInt8]?
        var versionInput: [UInt8] = []
        for (name, bytes) in files.sorted(by: { $0.key < $1.key }) {
            if name == "index.html" {
                index = bytes
                continue
            }
            guard let type = Self.contentType(of: name) else { throw ConsoleSiteError.unknownType(name) }
            assets[name] = File(bytes: bytes, contentType: type, etag: Self.tag(bytes))
            versionInput += Array(name.utf8) + [0] + bytes + [0]
        }
        guard let index else { throw ConsoleSiteError.missing("index.html") }
        version = String(SHA256.hexDigest(versionInput).prefix(16))
        self.assets = assets
        let page = String(decoding: index, as: UTF8.self)
            .replacingOccurrences(of: "{{ASSETS}}", with: "\(basePath)/v/\(version)")
            .replacingOccurrences(of: "{{BASE}}", with: basePath)
        let pageBytes = Array(page.utf8)
        self.index = File(bytes: pageBytes, contentType: "text/html; charset=utf-8", etag: Self.tag(pageBytes))
    }

    /// The asset `name` of `version`; nil for anything else (an old version after an upgrade too:
    /// the page that asked for it is reloaded and asks for the new one).
    public func asset(version: String, name: String) -> File? {
        guard version == self.version else { return nil }
        return assets[name]
    }

    static func contentType(of name: String) -> String? {
        if name.hasSuffix(".js") { return "text/javascript; charset=utf-8" }
        if name.hasSuffix(".css") { return "text/css; charset=utf-8" }
        if name.hasSuffix(".svg") { return "image/svg+xml" }
        return nil
    }

    static func tag(_ bytes: [UInt8]) -> String { "\"" + String(SHA256.hexDigest(bytes).prefix(32)) + "\"" }
}

public enum ConsoleSiteError: Error, CustomStringConvertible {
    case undecodable(String), unknownType(String), missing(String)
    public var description: String {
        switch self {
        case .undecodable(let name): "the embedded console file \(name) is not base64 (run make embed)"
        case .unknownType(let name): "the console file \(name) has no known content type"
        case .missing(let name): "the console has no \(name) (run make embed)"
        }
    }
}
