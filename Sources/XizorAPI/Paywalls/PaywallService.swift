import PaywallFormat
import PaywallRenderer
import Storage
import Digest

/// Paywalls, their drafts and their immutable published versions. Every write that changes what
/// the SDK may serve refreshes the serving state before it answers.
public final class PaywallService: Sendable {
    public enum Source: Sendable {
        case blank(name: String?)
        case template(String, name: String?)
        case document(JSONValue, name: String?)
    }

    private let pool: DatabasePool
    private let clock: Clock
    private let serving: ServingState
    /// Publishes append to it and catch up before answering: live here at once, elsewhere within a poll.
    private let changes: ChangeFeed
    private let activity: ServiceActivity

    public init(pool: DatabasePool, clock: Clock, serving: ServingState, changes: ChangeFeed, activity: ServiceActivity = ServiceActivity()) {
        self.pool = pool
        self.clock = clock
        self.serving = serving
        self.changes = changes
        self.activity = activity
    }

    // MARK: Create, list, read, archive

    public func create(appID: String, from source: Source) throws -> PaywallSummary {
        let id = Identifiers.paywallID()
        var document: JSONValue
        var name: String?
        switch source {
        case .blank(let n):
            name = n
            document = PaywallService.blankDocument(id: id, name: n ?? "Untitled paywall")
        case .template(let template, let n):
            guard let json = PaywallTemplates.document(named: template) else {
                let names = PaywallTemplates.names.joined(separator: ", ")
                throw ServiceError.badField("$.template", "unknown_template", "Unknown template '\(template)'; use one of \(names).")
            }
            document = json
            name = n
        case .document(let json, let n):
            guard json.objectValue != nil else {
                throw ServiceError.badField("$.document", "not_an_object", "A paywall document is a JSON object.")
            }
            document = json
            name = n
        }
        if case .object(var object) = document {
            object["id"] = .string(id)
            if let name { object["name"] = .string(name) }
            document = .object(object)
        }
        let finalName = name ?? document["name"]?.stringValue ?? "Untitled paywall"
        guard TextLimits.fits(finalName, max: 200) else {
            throw ServiceError.badField("$.name", "invalid_name", "A paywall name is 1 to 200 characters.")
        }
        let now = clock.now()
        try pool.serviceWrite { db in
            try db.execute("INSERT INTO paywalls (id, app_id, name, draft, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                           [id, appID, finalName, document.canonicalString, now, now])
        }
        return try summary(appID: appID, id: id)
    }

    /// An empty but well-formed starting point: one locale, a theme, a vertical stack.
    static func blankDocument(id: String, name: String) -> JSONValue {
        [
            "schemaVersion": 1, "id": .string(id), "name": .string(name),
            "locales": ["en"], "defaultLocale": "en",
            "theme": ["colors": ["bg": "#FFFFFF", "text": "#111111"]],
            "products": [],
            "settings": ["dismissable": true, "safeArea": "all", "background": ["kind": "color", "color": "$bg"]],
            "root": ["type": "stack", "direction": "vertical", "children": []],
        ]
    }

    public func list(appID: String, cursor: String?, limit: Int) throws -> Page<PaywallSummary> {
        let after = try PageCursor.parse(cursor)
        let rows = try pool.serviceRead { db in
            try db.query("""
                SELECT id FROM paywalls WHERE app_id = ? AND archived_at IS NULL AND (created_at, id) > (?, ?)
                ORDER BY created_at, id LIMIT ?
                """, [appID, after.createdAt, after.id, limit + 1])
        }
        let ids: [String] = try rows.prefix(limit).map { try $0.get(0) }
        let items = try ids.map { try summary(appID: appID, id: $0) }
        let next = rows.count > limit ? items.last.map { PageCursor(createdAt: $0.createdAt, id: $0.id).text } : nil
        return Page(items: items, nextCursor: next)
    }

    public func summary(appID: String, id: String) throws -> PaywallSummary {
        try pool.serviceRead { db in
            guard let row = try db.queryOne("""
                SELECT p.name, p.created_at, p.updated_at, p.archived_at, p.draft_revision,
                       (SELECT max(version) FROM paywall_versions v WHERE v.paywall_id = p.id)
                FROM paywalls p WHERE p.id = ? AND p.app_id = ?
                """, [id, appID]) else { throw ServiceError.notFound("paywall", id) }
            let placements: [String] = try db.query("SELECT key FROM placements WHERE app_id = ? AND paywall_id = ? ORDER BY key", [appID, id])
                .map { try $0.get(0) }
            return PaywallSummary(id: id, name: try row.get(0), createdAt: try row.get(1), updatedAt: try row.get(2),
                                  archivedAt: try row.get(3), draftRevision: try row.get(4), latestVersion: try row.get(5),
                                  placements: placements)
        }
    }

    /// Archives a paywall: it leaves lists and cannot be published; placements that point at it
    /// keep serving its last version until reassigned (the answer names them).
    public func archive(appID: String, id: String) throws -> PaywallSummary {
        let now = clock.now()
        try pool.serviceWrite { db in
            try db.execute("UPDATE paywalls SET archived_at = coalesce(archived_at, ?), updated_at = max(updated_at, ?) WHERE id = ? AND app_id = ?",
                           [now, now, id, appID])
            guard db.changes == 1 else { throw ServiceError.notFound("paywall", id) }
            try ChangeStore.append(db, appID: appID, kind: .paywall, entityID: id, now: now)
        }
        try changes.catchUp()
        return try summary(appID: appID, id: id)
    }

    // MARK: Draft

    public func draft(appID: String, id: String) throws -> Draft {
        try pool.serviceRead { db in
            guard let row = try db.queryOne("SELECT draft, draft_revision FROM paywalls WHERE id = ? AND app_id = ?", [id, appID]) else {
                throw ServiceError.notFound("paywall", id)
            }
            let text: String = try row.get(0)
            let document = try DataFailure.storedJSON(Array(text.utf8), what: "the draft of paywall '\(id)'", activity: self.activity)
            return Draft(paywallID: id, document: document, revision: try row.get(1), validation: PaywallValidator.validate(document))
        }
    }

    /// Saves the draft when `expectedRevision` is still current (optimistic concurrency): exactly
    /// one of two racing editors wins; the other gets 412.
    public func saveDraft(appID: String, id: String, document: JSONValue, expectedRevision: Int64) throws -> Draft {
        guard document.objectValue != nil else {
            throw ServiceError.badField("$", "not_an_object", "A draft is a JSON object.")
        }
        let now = clock.now()
        let revision: Int64 = try pool.serviceWrite { db in
            try db.execute("""
                UPDATE paywalls SET draft = ?, draft_revision = draft_revision + 1, updated_at = max(updated_at, ?)
                WHERE id = ? AND app_id = ? AND draft_revision = ?
                """, [document.canonicalString, now, id, appID, expectedRevision])
            if db.changes == 1 { return expectedRevision + 1 }
            guard let row = try db.queryOne("SELECT draft_revision FROM paywalls WHERE id = ? AND app_id = ?", [id, appID]) else {
                throw ServiceError.notFound("paywall", id)
            }
            let current: Int64 = try row.get(0)
            throw ServiceError(.preconditionFailed, "draft_revision_mismatch",
                               "The draft changed since revision \(expectedRevision); it is at revision \(current). Reload it and apply your edit again.")
        }
        return Draft(paywallID: id, document: document, revision: revision, validation: PaywallValidator.validate(document))
    }

    // MARK: Publish, versions, rollback

    /// Validates the draft strictly and, when valid, stores it as the next immutable version.
    /// A repeated `idempotencyKey` answers the version the first call created.
    public func publish(appID: String, id: String, idempotencyKey: String?) throws -> (version: PublishedVersion, replayed: Bool) {
        if let idempotencyKey, let existing = try versionForIdempotencyKey(appID: appID, id: id, key: idempotencyKey) {
            return (existing, true)
        }
        let draft = try self.draft(appID: appID, id: id)
        guard draft.validation.isValid else {
            throw ServiceError.invalid(draft.validation.errors, detail: "The draft has \(draft.validation.errors.count) validation error(s); fix them and publish again.")
        }
        let result = try insertVersion(appID: appID, id: id, document: draft.document, idempotencyKey: idempotencyKey, rolledBackFrom: nil)
        return result
    }

    /// Publishes version `n`'s document again as a new version.
    public func rollback(appID: String, id: String, to version: Int) throws -> PublishedVersion {
        let old = try self.version(appID: appID, id: id, version: version)
        return try insertVersion(appID: appID, id: id, document: old.document, idempotencyKey: nil, rolledBackFrom: version).version
    }

    private func insertVersion(appID: String, id: String, document: JSONValue, idempotencyKey: String?, rolledBackFrom: Int?) throws -> (version: PublishedVersion, replayed: Bool) {
        let bytes = document.canonicalBytes
        let text = String(decoding: bytes, as: UTF8.self)
        let hash = SHA256.hexDigest(bytes)
        let schemaVersion = document["schemaVersion"]?.intValue ?? 1
        // Every form older SDKs are served in must validate too, and every page form must render within
        // the budget, so serving never fails (a rollback to a version stored before the limits is refused too).
        let forms = try ServedForms(document: document)
        do { try PaywallRenderer.checkEveryForm(document) } catch {
            throw ServiceError(.unprocessable, "render_budget_exceeded", "This version cannot be published: \(error).")
        }
        let now = clock.now()
        let outcome: (Int, Bool) = try pool.serviceWrite { db in
            guard let row = try db.queryOne("SELECT archived_at FROM paywalls WHERE id = ? AND app_id = ?", [id, appID]) else {
                throw ServiceError.notFound("paywall", id)
            }
            let archivedAt: Int64? = try row.get(0)
            if archivedAt != nil {
                throw ServiceError(.conflict, "paywall_archived", "Paywall '\(id)' is archived and cannot be published.")
            }
            if let idempotencyKey, let replay = try db.queryOne("SELECT version FROM paywall_versions WHERE paywall_id = ? AND idempotency_key = ?", [id, idempotencyKey]) {
                return (try replay.get(0), true)
            }
            let next: Int = try db.queryOne("SELECT coalesce(max(version), 0) + 1 FROM paywall_versions WHERE paywall_id = ?", [id])?.get(0) ?? 1
            try db.execute("""
                INSERT INTO paywall_versions (paywall_id, version, document, schema_version, content_hash, published_at, idempotency_key, rolled_back_from)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, [id, next, text, schemaVersion, hash, now, idempotencyKey, rolledBackFrom])
            try db.execute("UPDATE paywalls SET updated_at = max(updated_at, ?) WHERE id = ?", [now, id])
            try ChangeStore.append(db, appID: appID, kind: .paywall, entityID: id, now: now)
            return (next, false)
        }
        let published = try version(appID: appID, id: id, version: outcome.0)
        if !outcome.1 {
            activity.recordPublish()
            serving.remember(ServedVersion(published: published, forms: forms))
        }
        try changes.catchUp()
        return (published, outcome.1)
    }

    private func versionForIdempotencyKey(appID: String, id: String, key: String) throws -> PublishedVersion? {
        let number: Int? = try pool.serviceRead { db in
            try db.queryOne("""
                SELECT v.version FROM paywall_versions v JOIN paywalls p ON p.id = v.paywall_id
                WHERE v.paywall_id = ? AND p.app_id = ? AND v.idempotency_key = ?
                """, [id, appID, key])?.get(0)
        }
        return try number.map { try version(appID: appID, id: id, version: $0) }
    }

    public func versions(appID: String, id: String) throws -> [PublishedVersion] {
        _ = try summary(appID: appID, id: id)
        return try pool.serviceRead { db in
            try db.query("""
                SELECT version, document, schema_version, content_hash, published_at, rolled_back_from
                FROM paywall_versions WHERE paywall_id = ? ORDER BY version DESC
                """, [id]).map { try PaywallService.publishedVersion(paywallID: id, row: $0, activity: self.activity) }
        }
    }

    public func version(appID: String, id: String, version: Int) throws -> PublishedVersion {
        try pool.serviceRead { db in
            guard let row = try db.queryOne("""
                SELECT v.version, v.document, v.schema_version, v.content_hash, v.published_at, v.rolled_back_from
                FROM paywall_versions v JOIN paywalls p ON p.id = v.paywall_id
                WHERE v.paywall_id = ? AND p.app_id = ? AND v.version = ?
                """, [id, appID, version]) else {
                throw ServiceError(.notFound, "version_not_found", "Paywall '\(id)' has no published version \(version).")
            }
            return try PaywallService.publishedVersion(paywallID: id, row: row, activity: self.activity)
        }
    }

    static func publishedVersion(paywallID: String, row: Row, activity: ServiceActivity) throws -> PublishedVersion {
        let text: String = try row.get(1)
        let bytes = Array(text.utf8)
        let number: Int = try row.get(0)
        let document = try DataFailure.storedJSON(bytes, what: "version \(number) of paywall '\(paywallID)'", activity: activity)
        return PublishedVersion(paywallID: paywallID, version: number, document: document,
                                canonicalBytes: bytes, schemaVersion: try row.get(2), contentHash: try row.get(3),
                                publishedAt: try row.get(4), rolledBackFrom: try row.get(5))
    }

}
