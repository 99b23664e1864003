import Foundation

/// The server's fallback bundle (`GET /v1/sdk/fallback-bundle`) shipped in the app:
/// `{placements: {KEY: {paywallId, version, schemaVersion, document}}}`.
struct FallbackBundle: Sendable {
    struct Entry: Sendable {
        var paywallId: String
        var version: Int
        var schemaVersion: Int
        var document: JSONValue
    }

    let entries: [String: Entry]

    /// Reads the bundle; entries the app's renderer cannot read (a newer schema than it
    /// supports, or incomplete) are left out, so an outdated or foreign bundle degrades to
    /// "no fallback" for those placements instead of failing the app.
    init(contentsOf url: URL, schemaVersion: Int) throws {
        let value = try JSONValue.decode(Data(contentsOf: url))
        guard let placements = value["placements"]?.objectValue else {
            throw XizorError.invalidResponse("\(url.lastPathComponent) has no \"placements\" object")
        }
        var entries: [String: Entry] = [:]
        for (key, raw) in placements {
            guard let paywallId = raw["paywallId"]?.stringValue, let version = raw["version"]?.intValue,
                let entrySchema = raw["schemaVersion"]?.intValue, entrySchema <= schemaVersion,
                let document = raw["document"]
            else { continue }
            entries[key] = Entry(paywallId: paywallId, version: version, schemaVersion: entrySchema, document: document)
        }
        self.entries = entries
    }

    func paywall(for placement: String) -> Paywall? {
        guard let entry = entries[placement] else { return nil }
        let locale = entry.document["defaultLocale"]?.stringValue ?? ""
        return Paywall(
            placement: placement, paywallId: entry.paywallId, version: entry.version,
            schemaVersion: entry.schemaVersion,
            locale: locale, content: .document(entry.document), experiment: nil, source: .fallback, etag: nil,
            verification: .notRequested)
    }
}
