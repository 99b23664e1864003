import PaywallFormat

/// What a rule's `key` may name, for the console's key picker: every request attribute
/// (`device.*`), the app's audiences, and the subscriber attribute and context keys its data shows.
/// The last two come from a bounded sample (at most `sampleRows` stored subscribers' attributes and
/// as many stored events' context, read along each table's primary key, no sort), so the answer
/// costs two short index range reads however much the app stores; a key the sample misses can
/// still be typed by hand.
public struct TargetingKeys: Sendable {
    public static let sampleRows = 500
    /// At most this many subscriber keys and as many context keys are answered (sorted, the first).
    public static let maxKeys = 200

    public let device: [String]
    public let audiences: [(id: String, name: String)]
    public let subscriber: [String]
    public let context: [String]

    public static func read(store: any DataStore, appID: String) throws -> TargetingKeys {
        try store.read { tx in
            let audiences = try tx.audiences.audiences(appID: appID).map { (id: $0.id, name: $0.name) }
            let subscriber = try names(in: try tx.subscribers.attributeSample(appID: appID, limit: sampleRows))
            let context = try names(in: try tx.subscribers.contextSample(appID: appID, limit: sampleRows))
            return TargetingKeys(
                device: RequestAttributes.Name.allCases.map { "device.\($0.rawValue)" }, audiences: audiences,
                subscriber: subscriber.map { "subscriber.\($0)" }, context: context.map { "context.\($0)" })
        }
    }

    /// The member names of JSON objects, sorted, capped. Rows are stored as JSON objects: one that
    /// does not parse is a damaged store and throws; a JSON value that is not an object names no key.
    static func names(in texts: [String]) throws -> [String] {
        var seen = Set<String>()
        for text in texts {
            guard let object = try JSONValue(parsing: text).objectValue else { continue }
            for name in object.keys where !name.isEmpty && name.utf8.count <= Condition.maxKeyLength {
                seen.insert(name)
            }
        }
        return Array(seen.sorted().prefix(maxKeys))
    }

    public var json: JSONValue {
        [
            "device": .array(device.map { .string($0) }),
            "audiences": .array(audiences.map { ["id": .string($0.id), "name": .string($0.name)] }),
            "subscriber": .array(subscriber.map { .string($0) }),
            "context": .array(context.map { .string($0) }),
        ]
    }
}
