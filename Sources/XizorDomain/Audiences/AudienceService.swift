import PaywallFormat

/// A named audience as the dashboard reads it, with the rules that use it.
public struct AudienceInfo: Sendable {
    public let id: String
    public let name: String
    public let condition: JSONValue
    public let usedBy: [PlacementReference]
    public let createdAt: Int64
    public let updatedAt: Int64
    /// What the write that answered this may not have meant (a comparison that can never match),
    /// as a placement's rules write says it.
    public var warnings: [ValidationIssue] = []

    public var json: JSONValue {
        var o: [String: JSONValue] = [
            "id": .string(id), "name": .string(name), "condition": condition, "usedBy": .array(usedBy.map(\.json)),
            "createdAt": .number(Int(createdAt)), "updatedAt": .number(Int(updatedAt)),
        ]
        if !warnings.isEmpty { o["warnings"] = .array(warnings.map(\.json)) }
        return .object(o)
    }
}

/// Named audiences: a condition written once and referred to by rules as `{"audience": ID}`. A
/// change is live on the next SDK request (it is part of the app's routing, re-read with the
/// placements); an audience that rules use cannot be deleted. An audience's own condition cannot
/// refer to another audience, so audiences never form cycles and a rule's cost stays visible.
public final class AudienceService: Sendable {
    private let store: any DataStore
    private let clock: Clock
    private let changes: ChangeFeed
    private let activity: ServiceActivity

    public init(store: any DataStore, clock: Clock, changes: ChangeFeed, activity: ServiceActivity) {
        self.store = store
        self.clock = clock
        self.changes = changes
        self.activity = activity
    }

    package static let idRule = "1 to 64 of a-z A-Z 0-9 _ -"
    /// Audiences per app: every one is held in memory and may be evaluated on every request.
    public static let maxPerApp = 500

    public static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64
            && id.utf8.allSatisfy { b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F
                    || b == 0x2D
            }
    }

    public func list(appID: String) throws -> [AudienceInfo] {
        try store.read { tx in
            let users = try AudienceService.users(tx, appID: appID, activity: activity)
            return try tx.audiences.audiences(appID: appID).map { try info($0, usedBy: users[$0.id] ?? []) }
        }
    }

    public func audience(appID: String, id: String) throws -> AudienceInfo {
        try store.read { tx in
            guard let stored = try tx.audiences.audience(appID: appID, id: id) else {
                throw ServiceError.notFound("audience", id)
            }
            return try info(stored, usedBy: try AudienceService.users(tx, appID: appID, activity: activity)[id] ?? [])
        }
    }

    /// Creates or replaces `{"name"?, "condition"}` (the name defaults to the id).
    public func put(appID: String, id: String, body: JSONValue) throws -> (audience: AudienceInfo, created: Bool) {
        guard AudienceService.isValidID(id) else {
            throw ServiceError.badField("$.id", "invalid_audience_id", "An audience id is \(AudienceService.idRule).")
        }
        guard let object = body.objectValue else {
            throw ServiceError.badField("$", "type_mismatch", "Send {\"name\": …, \"condition\": …}.")
        }
        var issues: [ValidationIssue] = []
        for name in object.keys.sorted() where name != "name" && name != "condition" {
            issues.append(
                ValidationIssue(
                    path: "$.\(name)", message: "Unknown property '\(name)'; an audience has name and condition.",
                    code: "unknown_property"))
        }
        let name = try body.optionalString("name", path: "$") ?? id
        if !TextLimits.fits(name, max: 200) || name.isEmpty {
            issues.append(
                ValidationIssue(path: "$.name", message: "'name' is 1 to 200 characters.", code: "string_too_long"))
        }
        var condition: Condition?
        if let json = object["condition"] {
            condition = Condition.parse(
                json, path: "$.condition", issues: &issues,
                options: Condition.ParseOptions(allowsAudiences: false, newSeed: { Identifiers.random(12) }))
        } else {
            issues.append(
                ValidationIssue(
                    path: "$.condition", message: "An audience needs a 'condition'.", code: "missing_required_field"))
        }
        let cost = condition.map { EvaluationCost.of($0, audiences: [:]) } ?? 0
        if cost > EvaluationCost.budget {
            issues.append(EvaluationCost.refusal(path: "$.condition", what: "This audience", cost: cost))
        }
        guard issues.isEmpty, let condition else {
            throw ServiceError.invalid(issues, detail: "The audience has \(issues.count) error(s).")
        }
        let now = clock.now()
        let created = try store.write { tx -> Bool in
            // Count, then insert, and price the rules naming it as they are: no other audience or
            // rules write of the app may interleave (setRules takes the same lock).
            try tx.apps.lockForLimits(appID: appID)
            if try tx.audiences.audience(appID: appID, id: id) == nil,
                try tx.audiences.audiences(appID: appID).count >= AudienceService.maxPerApp
            {
                throw ServiceError(
                    .conflict, "too_many_audiences",
                    "An app has at most \(AudienceService.maxPerApp) audiences; delete one first.")
            }
            // Every placement whose rules name it is priced again with its new condition.
            let users = Set(
                (try AudienceService.users(tx, appID: appID, activity: activity)[id] ?? []).map(\.placement))
            let priced = try EvaluationCost.placements(tx, appID: appID, replacing: (id, cost))
            let over = users.sorted().compactMap { key in
                priced[key].flatMap { $0 > EvaluationCost.budget ? (key, $0) : nil }
            }
            if !over.isEmpty {
                throw ServiceError.invalid(
                    over.map {
                        EvaluationCost.refusal(
                            path: "$.condition", what: "Placement '\($0.0)' (whose rules name this audience)",
                            cost: $0.1)
                    },
                    detail: "The audience would put \(over.count) placement(s) over the evaluation budget.")
            }
            let before = try tx.audiences.audience(appID: appID, id: id)
            let text = condition.json.canonicalString
            let created = try tx.audiences.upsert(appID: appID, id: id, name: name, condition: text, now: now)
            // Audiences are routing: the feed's placement change re-reads them with the rules.
            try tx.changes.append(appID: appID, kind: .placement, entityID: nil, now: now)
            try tx.record(
                WriteRecord(
                    appID: appID, action: .audienceUpdated, targetKind: "audience", targetID: id,
                    before: before.map { AudienceService.auditBytes(name: $0.name, condition: $0.condition) },
                    after: AudienceService.auditBytes(name: name, condition: text)), now: now)
            return created
        }
        try changes.catchUp()
        var answer = try audience(appID: appID, id: id)
        answer.warnings = condition.warnings(path: "$.condition")
        return (answer, created)
    }

    /// An audience as the audit log hashes it: its name and stored condition text.
    static func auditBytes(name: String, condition: String) -> [UInt8] {
        (["name": .string(name), "condition": .string(condition)] as JSONValue).canonicalBytes
    }

    /// 409 `audience_in_use` while a rule refers to it (the rules are listed).
    public func delete(appID: String, id: String) throws {
        let now = clock.now()
        try store.write { tx in
            // No rule may come to name it between this check and the delete (setRules takes the same lock).
            try tx.apps.lockForLimits(appID: appID)
            let users = try AudienceService.users(tx, appID: appID, activity: activity)[id] ?? []
            guard users.isEmpty else {
                let names = users.map { "rule \($0.rule ?? 0) of placement '\($0.placement)'" }.joined(separator: ", ")
                throw ServiceError(
                    .conflict, "audience_in_use", "Audience '\(id)' is used by \(names); change those rules first.")
            }
            guard let before = try tx.audiences.audience(appID: appID, id: id),
                try tx.audiences.delete(appID: appID, id: id)
            else {
                throw ServiceError.notFound("audience", id)
            }
            try tx.changes.append(appID: appID, kind: .placement, entityID: nil, now: now)
            try tx.record(
                WriteRecord(
                    appID: appID, action: .audienceDeleted, targetKind: "audience", targetID: id,
                    before: AudienceService.auditBytes(name: before.name, condition: before.condition)), now: now)
        }
        try changes.catchUp()
    }

    /// The rules that refer to each audience, read from the stored conditions. A stored rule that
    /// no longer reads names no audience anyone can know: it is counted as a data failure (as
    /// serving counts it) and skipped here, where the listing of the others is still worth answering.
    static func users(_ tx: any StoreTransaction, appID: String, activity: ServiceActivity) throws -> [String:
        [PlacementReference]]
    {
        var users: [String: [PlacementReference]] = [:]
        for placement in try tx.placements.placements(appID: appID) {
            for (index, rule) in placement.rules.enumerated() {
                var issues: [ValidationIssue] = []
                guard let json = try? JSONValue(parsing: rule.condition),
                    let condition = Condition.parse(json, path: "$", issues: &issues)
                else {
                    activity.recordDataFailure(.storedRule)
                    continue
                }
                for id in condition.audienceIDs {
                    users[id, default: []].append(PlacementReference(placement: placement.key, rule: index))
                }
            }
        }
        return users
    }

    private func info(_ stored: StoredAudience, usedBy: [PlacementReference]) throws -> AudienceInfo {
        AudienceInfo(
            id: stored.id, name: stored.name,
            condition: try DataFailure.storedJSON(
                Array(stored.condition.utf8), what: "audience '\(stored.id)'", activity: activity),
            usedBy: usedBy, createdAt: stored.createdAt, updatedAt: stored.updatedAt)
    }
}
