import Digest
import PaywallFormat
import PaywallRenderer

/// Paywalls, their drafts and their immutable published versions. Every write that changes what
/// the SDK may serve refreshes the serving state before it answers.
public final class PaywallService: Sendable {
    public enum Source: Sendable {
        case blank(name: String?)
        case template(String, name: String?)
        case document(JSONValue, name: String?)
    }

    let store: any DataStore
    let clock: Clock
    let serving: ServingState
    /// Publishes append to it and catch up before answering: live here at once, elsewhere within a poll.
    let changes: ChangeFeed
    let activity: ServiceActivity

    /// Publishing refuses (422 `incomplete_locales`) instead of warning when a locale lacks texts
    /// or has stale ones (`publish.requireCompleteLocales`).
    let requireCompleteLocales: Bool

    /// The largest draft a save stores (canonical bytes): what a `PUT` may send (`http.maxBodyBytes`,
    /// at most the JSON parser's 8 MiB so it can be read back). Patches are held to it too.
    let maxDraftBytes: Int

    public init(
        store: any DataStore, clock: Clock, serving: ServingState, changes: ChangeFeed,
        activity: ServiceActivity = ServiceActivity(),
        requireCompleteLocales: Bool = false, maxDraftBytes: Int = JSONPatch.Budget.standard.maxBytes
    ) {
        self.store = store
        self.clock = clock
        self.serving = serving
        self.changes = changes
        self.activity = activity
        self.requireCompleteLocales = requireCompleteLocales
        self.maxDraftBytes = min(maxDraftBytes, JSONParser().maxBytes)
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
            guard let json = try PaywallTemplates.document(named: template) else {
                let names = PaywallTemplates.names.joined(separator: ", ")
                throw ServiceError.badField(
                    "$.template", "unknown_template", "Unknown template '\(template)'; use one of \(names).")
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
        guard TextLimits.fits(finalName, max: PaywallService.maxNameLength) else {
            throw ServiceError.badField(
                "$.name", "invalid_name", "A paywall name is 1 to \(PaywallService.maxNameLength) characters.")
        }
        let now = clock.now()
        let memory = TranslationMemory().updated(from: nil, to: document)
        let draft = document.canonicalString
        try store.write { tx in
            try tx.paywalls.insert(
                id: id, appID: appID, name: finalName, draft: draft,
                translationSources: memory.json.canonicalString, now: now)
            try tx.record(
                WriteRecord(
                    appID: appID, action: .paywallCreated, targetKind: "paywall", targetID: id,
                    after: Array(draft.utf8)), now: now)
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

    /// One page of the app's live paywalls, read from one snapshot.
    /// Live paywalls, or with `archived` the archived ones (to find one to unarchive).
    public func list(appID: String, cursor: String?, limit: Int, archived: Bool = false) throws -> Page<PaywallSummary>
    {
        let after = try PageCursor.parse(cursor)
        let (rows, placements) = try store.read { tx in
            let rows = try tx.paywalls.page(appID: appID, after: after, limit: limit + 1, archived: archived)
            return (rows, try tx.placements.references(appID: appID, targeting: rows.prefix(limit).map(\.id)))
        }
        let items = rows.prefix(limit).map { PaywallSummary($0, targetedBy: placements[$0.id] ?? []) }
        let next = rows.count > limit ? items.last.map { PageCursor(createdAt: $0.createdAt, id: $0.id).text } : nil
        return Page(items: items, nextCursor: next)
    }

    public func summary(appID: String, id: String) throws -> PaywallSummary {
        try store.read { tx in try PaywallService.summary(tx, appID: appID, id: id) }
    }

    static func summary(_ tx: any StoreTransaction, appID: String, id: String) throws -> PaywallSummary {
        guard let row = try tx.paywalls.paywall(appID: appID, id: id) else {
            throw ServiceError.notFound("paywall", id)
        }
        return PaywallSummary(row, targetedBy: try tx.placements.references(appID: appID, targeting: [id])[id] ?? [])
    }

    static let maxNameLength = 200

    /// Renames a paywall: the draft document's `name` is set (a new draft revision, at
    /// `expectedRevision` when given, else at whatever the draft is now), and the summary follows it.
    /// Published versions keep the name they were published with.
    public func rename(appID: String, id: String, name: String, expectedRevision: Int64?) throws -> PaywallSummary {
        guard TextLimits.fits(name, max: PaywallService.maxNameLength) else {
            throw ServiceError.badField(
                "$.name", "invalid_name", "A paywall name is 1 to \(PaywallService.maxNameLength) characters.")
        }
        let current = try draft(appID: appID, id: id)
        guard case .object(var document) = current.document else {
            throw ServiceError.badField("$", "not_an_object", "The draft is not a JSON object.")
        }
        document["name"] = .string(name)
        _ = try saveDraft(
            appID: appID, id: id, document: .object(document), expectedRevision: expectedRevision ?? current.revision,
            action: .paywallRenamed)
        return try summary(appID: appID, id: id)
    }

    /// Archives a paywall: it leaves lists and cannot be published; placements that point at it
    /// keep serving its last version until reassigned (the answer names them). An archived one is
    /// answered as it is, and nothing is recorded (as `unarchive` does for a live one).
    public func archive(appID: String, id: String) throws -> PaywallSummary {
        let now = clock.now()
        let changed = try store.write { tx -> Bool in
            guard try tx.paywalls.lifecycle(appID: appID, id: id) != nil else {
                throw ServiceError.notFound("paywall", id)
            }
            guard try tx.paywalls.archive(appID: appID, id: id, now: now) else { return false }
            try tx.changes.append(appID: appID, kind: .paywall, entityID: id, now: now)
            try tx.record(
                WriteRecord(
                    appID: appID, action: .paywallArchived, targetKind: "paywall", targetID: id,
                    data: ["paywallId": .string(id)]), now: now)
            return true
        }
        if changed { try changes.catchUp() }
        return try summary(appID: appID, id: id)
    }

    /// Makes an archived paywall live again: it is listed, can be published and targeted again; its
    /// draft and versions are as they were. A live paywall is answered as it is, and nothing is
    /// recorded (no audit entry, no `paywall.unarchived` webhook for a change that did not happen).
    public func unarchive(appID: String, id: String) throws -> PaywallSummary {
        let now = clock.now()
        let changed = try store.write { tx -> Bool in
            guard try tx.paywalls.lifecycle(appID: appID, id: id) != nil else {
                throw ServiceError.notFound("paywall", id)
            }
            guard try tx.paywalls.unarchive(appID: appID, id: id, now: now) else { return false }
            try tx.changes.append(appID: appID, kind: .paywall, entityID: id, now: now)
            try tx.record(
                WriteRecord(
                    appID: appID, action: .paywallUnarchived, targetKind: "paywall", targetID: id,
                    data: ["paywallId": .string(id)]), now: now)
            return true
        }
        if changed { try changes.catchUp() }
        return try summary(appID: appID, id: id)
    }

    // MARK: Draft

    public func draft(appID: String, id: String) throws -> Draft {
        guard let stored = try store.read({ tx in try tx.paywalls.draft(appID: appID, id: id) }) else {
            throw ServiceError.notFound("paywall", id)
        }
        let document = try storedDraftDocument(stored, id: id)
        var draft = Draft(
            paywallID: id, document: document, revision: stored.revision,
            validation: PaywallValidator.validate(document))
        draft.translations = try memory(stored, id: id)
        return draft
    }

    /// The stored translation memory (none recorded yet reads as empty: the next save records it).
    private func memory(_ stored: StoredDraft, id: String) throws -> TranslationMemory {
        guard let text = stored.translationSources else { return TranslationMemory() }
        return TranslationMemory(
            json: try DataFailure.storedJSON(
                Array(text.utf8), what: "the translation memory of paywall '\(id)'",
                activity: activity))
    }

    /// Saves the draft when `expectedRevision` is still current (optimistic concurrency): exactly
    /// one of two racing editors wins; the other gets 412.
    /// `action` names the edit in the audit log (a rename is a draft save that says so).
    public func saveDraft(
        appID: String, id: String, document body: JSONValue, expectedRevision: Int64,
        action: AuditAction = .paywallDraftUpdated
    ) throws -> Draft {
        let document = DraftEnvelope.document(in: body)
        guard document.objectValue != nil else {
            throw ServiceError.badField("$", "not_an_object", "A draft is a JSON object.")
        }
        // Every edit ends here, so no way of saving stores a draft larger than a PUT could send.
        let text = document.canonicalString
        try checkSize(text)
        let now = clock.now()
        // The paywall's name is the draft document's: a saved name renames it (one too long or not a
        // string is the validator's to report, and leaves the name as it was).
        let name = document["name"]?.stringValue.flatMap {
            TextLimits.fits($0, max: PaywallService.maxNameLength) ? $0 : nil
        }
        let (revision, translations): (Int64, TranslationMemory) = try store.write { tx in
            // The memory follows every save: translations written now were made from today's source.
            guard let previous = try tx.paywalls.draft(appID: appID, id: id) else {
                throw ServiceError.notFound("paywall", id)
            }
            // A previous draft that no longer parses is counted as a data failure and has no
            // translations to compare with: the memory starts from this save, which replaces it.
            let before: JSONValue?
            do {
                before = try DataFailure.storedJSON(
                    Array(previous.document.utf8), what: "the draft of paywall '\(id)'", activity: self.activity)
            } catch {
                before = nil
            }
            let memory = try self.memory(previous, id: id).updated(from: before, to: document)
            if try tx.paywalls.saveDraft(
                appID: appID, id: id, document: text, name: name,
                translationSources: memory.json.canonicalString, expectedRevision: expectedRevision, now: now)
            {
                try tx.record(
                    WriteRecord(
                        appID: appID, action: action, targetKind: "paywall", targetID: id,
                        before: Array(previous.document.utf8), after: Array(text.utf8)), now: now)
                return (expectedRevision + 1, memory)
            }
            guard let current = try tx.paywalls.draft(appID: appID, id: id)?.revision else {
                throw ServiceError.notFound("paywall", id)
            }
            throw ServiceError(
                .preconditionFailed, "draft_revision_mismatch",
                "The draft changed since revision \(expectedRevision); it is at revision \(current). Reload it and apply your edit again."
            )
        }
        var saved = Draft(
            paywallID: id, document: document, revision: revision, validation: PaywallValidator.validate(document))
        saved.translations = translations
        return saved
    }
}
