import PaywallFormat

/// A paywall as the dashboard lists it.
public struct PaywallSummary: Sendable {
    public let id: String
    public let name: String
    public let createdAt: Int64
    public let updatedAt: Int64
    public let archivedAt: Int64?
    public let draftRevision: Int64
    public let latestVersion: Int?
    /// Whether the draft has changed since the latest version (nil before the first publish).
    public let draftChanged: Bool?
    /// Keys of the placements that serve it: their own target or one of their rules.
    public let placements: [String]
    /// Each placement and rule that targets it, directly or through an experiment (`experimentID`).
    public let targetedBy: [PlacementReference]

    init(_ stored: StoredPaywall, targetedBy: [PlacementReference]) {
        id = stored.id
        name = stored.name
        createdAt = stored.createdAt
        updatedAt = stored.updatedAt
        archivedAt = stored.archivedAt
        draftRevision = stored.draftRevision
        latestVersion = stored.latestVersion
        draftChanged = stored.draftChanged
        self.targetedBy = targetedBy
        var seen = Set<String>()
        placements = targetedBy.map(\.placement).filter { seen.insert($0).inserted }
    }

    public var json: JSONValue {
        [
            "id": .string(id), "name": .string(name),
            "createdAt": .number(Int(createdAt)), "updatedAt": .number(Int(updatedAt)),
            "archived": .bool(archivedAt != nil),
            "archivedAt": archivedAt.map { .number(Int($0)) } ?? .null,
            "draftRevision": .number(Int(draftRevision)),
            "latestVersion": latestVersion.map { .number($0) } ?? .null,
            "draftChangedSincePublish": draftChanged.map(JSONValue.bool) ?? .null,
            "placements": .array(placements.map { .string($0) }),
            "targetedBy": .array(targetedBy.map(\.json)),
        ]
    }
}

/// The editable draft: any JSON object, with its revision (the ETag) and its validation.
public struct Draft: Sendable {
    public let paywallID: String
    public let document: JSONValue
    public let revision: Int64
    public let validation: ValidationResult
    /// What the edit itself did that the editor may not have meant (a merge patch replacing an
    /// array whole), beside the document's own validation.
    public var editWarnings: [ValidationIssue] = []
    /// What each translation was made from (stale translations are derived from it).
    public var translations = TranslationMemory()

    /// `"r<revision>"` — strong, changes on every save.
    public var etag: String { "\"r\(revision)\"" }

    public var json: JSONValue {
        var json: JSONValue = [
            "paywallId": .string(paywallID), "revision": .number(Int(revision)), "document": document,
            "validation": validation.json,
        ]
        if !editWarnings.isEmpty { json["editWarnings"] = .array(editWarnings.map(\.json)) }
        return json
    }
}

/// One immutable published version.
public struct PublishedVersion: Sendable {
    public let paywallID: String
    public let version: Int
    public let document: JSONValue
    public let canonicalBytes: [UInt8]
    public let schemaVersion: Int
    public let contentHash: String
    public let publishedAt: Int64
    public let rolledBackFrom: Int?
    public let note: String?
    public let publishedBy: String?

    public func json(includeDocument: Bool) -> JSONValue {
        var o: [String: JSONValue] = [
            "paywallId": .string(paywallID), "version": .number(version), "schemaVersion": .number(schemaVersion),
            "contentHash": .string(contentHash), "publishedAt": .number(Int(publishedAt)),
            "rolledBackFrom": rolledBackFrom.map { .number($0) } ?? .null,
            "note": note.map(JSONValue.string) ?? .null, "publishedBy": publishedBy.map(JSONValue.string) ?? .null,
        ]
        if includeDocument { o["document"] = document }
        return .object(o)
    }
}

/// A page of a cursor-paginated list.
public struct Page<Item: Sendable>: Sendable {
    public let items: [Item]
    public let nextCursor: String?
}

extension PaywallSummary {
    /// An archive's answer (REST and MCP): the summary, and a `warning` naming the placements that
    /// keep serving the paywall's last version until they are reassigned.
    public var archivedJSON: JSONValue {
        var body = json
        if !targetedBy.isEmpty {
            let names = targetedBy.map { reference in
                (reference.rule.map { "rule \($0) of placement '\(reference.placement)'" }
                    ?? "placement '\(reference.placement)'")
                    + (reference.experimentName.map { " (via experiment '\($0)')" } ?? "")
            }
            body["warning"] = .string(
                "\(names.joined(separator: ", ")) keep serving this paywall's last version until they target another paywall."
            )
        }
        return body
    }
}
