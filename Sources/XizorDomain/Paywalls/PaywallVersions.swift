import Digest
import PaywallFormat
import PaywallRenderer

/// What a publish (or rollback) did.
public enum PublishOutcome: Sendable, Equatable {
    /// A new version.
    case created
    /// A repeated `Idempotency-Key`: the version the first call created.
    case replayed
    /// The document is the latest version's already: that version, and nothing created (unless forced).
    case unchanged
}

/// What a publish (or rollback) answers: the version, what happened, and what a person should
/// know (locales that lack texts or have stale translations).
public struct PublishResult: Sendable {
    public let version: PublishedVersion
    public let outcome: PublishOutcome
    public var warnings: [ValidationIssue] = []

    /// The version without its document, with the warnings when there are any (REST and MCP add
    /// how they tell the outcome).
    package var json: JSONValue {
        var json = version.json(includeDocument: false)
        if !warnings.isEmpty { json["warnings"] = .array(warnings.map(\.json)) }
        return json
    }
}

/// Who publishes and why: recorded with the version.
public struct PublishOptions: Sendable {
    public var note: String?
    /// Publish even when the document is the latest version's (a new version with the same content).
    public var force: Bool
    /// The id of the publishing key (nil from the CLI).
    public var publishedBy: String?

    public init(note: String? = nil, force: Bool = false, publishedBy: String? = nil) {
        self.note = note
        self.force = force
        self.publishedBy = publishedBy
    }

    /// The options of a REST body or MCP arguments: `note` (1 to 500 characters) and `force`.
    package static func parse(_ json: JSONValue, path: String, publishedBy: String?) throws -> PublishOptions {
        let note = try json.optionalString("note", path: path)
        if let note, !TextLimits.fits(note, max: 500) {
            throw ServiceError.badField("\(path).note", "type_mismatch", "'note' is 1 to 500 characters.")
        }
        var force = false
        if let value = json["force"], !value.isNull {
            guard let flag = value.boolValue else {
                throw ServiceError.badField("\(path).force", "type_mismatch", "'force' is a boolean.")
            }
            force = flag
        }
        return PublishOptions(note: note, force: force, publishedBy: publishedBy)
    }

    /// The hash that tells one keyed publish request from another: method, path and body (the
    /// options as parsed, so REST and MCP, and `{}` and no body, agree). Who sends it is not part.
    func requestHash(paywallID: String) -> String {
        let body: JSONValue = ["note": note.map(JSONValue.string) ?? .null, "force": .bool(force)]
        return SHA256.hexDigest(Array("POST /v1/paywalls/\(paywallID)/publish\n\(body.canonicalString)".utf8))
    }
}

extension PaywallService {
    // MARK: Publish, versions, rollback

    /// Validates the draft strictly and, when valid, stores it as the next immutable version.
    /// A repeated `idempotencyKey` answers the version the first call created, when it comes with
    /// the same request (422 `idempotency_key_mismatch` otherwise).
    public func publish(
        appID: String, id: String, idempotencyKey: String?,
        options: PublishOptions = PublishOptions()
    ) throws -> PublishResult {
        let requestHash = options.requestHash(paywallID: id)
        if let idempotencyKey,
            let existing = try versionForIdempotencyKey(
                appID: appID, id: id, key: idempotencyKey, requestHash: requestHash)
        {
            return PublishResult(version: existing, outcome: .replayed)
        }
        let draft = try self.draft(appID: appID, id: id)
        guard draft.validation.isValid else {
            throw ServiceError.invalid(
                draft.validation.errors,
                detail:
                    "The draft has \(draft.validation.errors.count) validation error(s); fix them and publish again.")
        }
        // A locale with missing or stale texts would show a page in two languages: a warning with
        // the publish, or a refusal when the operator asks for complete locales.
        let warnings = draft.translations.coverage(of: draft.document).filter { !$0.isComplete }.map(Self.warning)
        if requireCompleteLocales && !warnings.isEmpty {
            throw ServiceError(
                .unprocessable, "incomplete_locales",
                "\(warnings.count) locale(s) lack texts or have stale translations (publish.requireCompleteLocales); translate them and publish again.",
                errors: warnings)
        }
        let (version, outcome) = try insertVersion(
            appID: appID, id: id, document: draft.document, idempotencyKey: idempotencyKey,
            rolledBackFrom: nil, options: options)
        return PublishResult(version: version, outcome: outcome, warnings: warnings)
    }

    private static func warning(_ coverage: LocaleCoverage) -> ValidationIssue {
        var parts: [String] = []
        if !coverage.missing.isEmpty {
            parts.append("\(coverage.missing.count) of \(coverage.texts) texts missing (first: \(coverage.missing[0]))")
        }
        if !coverage.stale.isEmpty {
            parts.append("\(coverage.stale.count) stale: made from an older source text (first: \(coverage.stale[0]))")
        }
        return ValidationIssue(
            path: "$.locales[\"\(coverage.locale)\"]",
            message: "'\(coverage.locale)': " + parts.joined(separator: "; ") + ".",
            code: coverage.missing.isEmpty ? "locale_stale" : "locale_incomplete")
    }

    /// Publishes version `n`'s document again as a new version (`.unchanged` when it is the latest's already).
    public func rollback(appID: String, id: String, to version: Int, options: PublishOptions = PublishOptions()) throws
        -> PublishResult
    {
        let old = try self.version(appID: appID, id: id, version: version)
        let (published, outcome) = try insertVersion(
            appID: appID, id: id, document: old.document, idempotencyKey: nil,
            rolledBackFrom: version, options: options)
        return PublishResult(version: published, outcome: outcome)
    }

    private func insertVersion(
        appID: String, id: String, document: JSONValue, idempotencyKey: String?, rolledBackFrom: Int?,
        options: PublishOptions
    ) throws -> (version: PublishedVersion, outcome: PublishOutcome) {
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
        let outcome: (StoredVersion, PublishOutcome) = try store.write { tx in
            try tx.paywalls.lockForPublish(paywallID: id)
            switch try tx.paywalls.lifecycle(appID: appID, id: id) {
            case nil: throw ServiceError.notFound("paywall", id)
            case .archived?:
                throw ServiceError(
                    .conflict, "paywall_archived", "Paywall '\(id)' is archived and cannot be published.")
            case .live?: break
            }
            if let idempotencyKey,
                let replayed = try tx.paywalls.version(appID: appID, paywallID: id, idempotencyKey: idempotencyKey)
            {
                try Self.checkSameRequest(
                    replayed, key: idempotencyKey, requestHash: options.requestHash(paywallID: id))
                if let stored = try tx.paywalls.version(paywallID: id, version: replayed.version) {
                    return (stored, .replayed)
                }
            }
            let latest = try tx.paywalls.latestVersionNumber(paywallID: id)
            let current = try latest.flatMap { try tx.paywalls.version(paywallID: id, version: $0) }
            // Publishing what is live already makes no version (Superwall and RevenueCat publish
            // changes, not clicks): the latest is answered, unless the caller forces a new one.
            if !options.force, let current, current.contentHash == hash {
                return (current, .unchanged)
            }
            let stored = StoredVersion(
                paywallID: id, version: (latest ?? 0) + 1, document: text, schemaVersion: schemaVersion,
                contentHash: hash, publishedAt: now, rolledBackFrom: rolledBackFrom,
                note: options.note, publishedBy: options.publishedBy)
            try tx.paywalls.insertVersion(
                stored, idempotencyKey: idempotencyKey,
                requestHash: idempotencyKey == nil ? nil : options.requestHash(paywallID: id))
            try tx.changes.append(appID: appID, kind: .paywall, entityID: id, now: now)
            var data: JSONValue = [
                "paywallId": .string(id), "version": .number(stored.version),
                "note": options.note.map(JSONValue.string) ?? .null,
            ]
            if let rolledBackFrom { data["rolledBackFrom"] = .number(rolledBackFrom) }
            try tx.record(
                WriteRecord(
                    appID: appID, action: rolledBackFrom == nil ? .paywallPublished : .paywallRolledBack,
                    targetKind: "paywall", targetID: id, before: current.map { Array($0.document.utf8) },
                    after: bytes, data: data), now: now)
            return (stored, .created)
        }
        let published = try PaywallService.publishedVersion(outcome.0, activity: activity)
        if outcome.1 == .created {
            activity.recordPublish()
            serving.remember(ServedVersion(published: published, forms: forms))
        }
        try changes.catchUp()
        return (published, outcome.1)
    }

    private func versionForIdempotencyKey(appID: String, id: String, key: String, requestHash: String) throws
        -> PublishedVersion?
    {
        let stored = try store.read { tx -> StoredVersion? in
            guard let first = try tx.paywalls.version(appID: appID, paywallID: id, idempotencyKey: key) else {
                return nil
            }
            try Self.checkSameRequest(first, key: key, requestHash: requestHash)
            return try tx.paywalls.version(paywallID: id, version: first.version)
        }
        return try stored.map { try PaywallService.publishedVersion($0, activity: activity) }
    }

    /// A key names one request: replaying its answer to another request would tell the caller that
    /// this one happened (Stripe answers the same 422). A version stored before request hashes were
    /// (nil) replays as it always did.
    private static func checkSameRequest(_ first: IdempotentPublish, key: String, requestHash: String) throws {
        guard let stored = first.requestHash, stored != requestHash else { return }
        throw ServiceError(
            .unprocessable, "idempotency_key_mismatch",
            "Idempotency-Key '\(key)' was used for a different request (another note or force), which made version \(first.version); send a new key for a new request."
        )
    }

    public func versions(appID: String, id: String) throws -> [PublishedVersion] {
        let stored = try store.read { tx in
            guard try tx.paywalls.lifecycle(appID: appID, id: id) != nil else {
                throw ServiceError.notFound("paywall", id)
            }
            return try tx.paywalls.versions(paywallID: id)
        }
        return try stored.map { try PaywallService.publishedVersion($0, activity: activity) }
    }

    public func version(appID: String, id: String, version: Int) throws -> PublishedVersion {
        guard
            let stored = try store.read({ tx in try tx.paywalls.version(appID: appID, paywallID: id, version: version) }
            )
        else {
            throw ServiceError(.notFound, "version_not_found", "Paywall '\(id)' has no published version \(version).")
        }
        return try PaywallService.publishedVersion(stored, activity: activity)
    }

    /// A stored version with its document parsed; a document that no longer parses is a counted data failure.
    static func publishedVersion(_ stored: StoredVersion, activity: ServiceActivity) throws -> PublishedVersion {
        let bytes = Array(stored.document.utf8)
        let document = try DataFailure.storedJSON(
            bytes, what: "version \(stored.version) of paywall '\(stored.paywallID)'", activity: activity)
        return PublishedVersion(
            paywallID: stored.paywallID, version: stored.version, document: document,
            canonicalBytes: bytes, schemaVersion: stored.schemaVersion, contentHash: stored.contentHash,
            publishedAt: stored.publishedAt, rolledBackFrom: stored.rolledBackFrom,
            note: stored.note, publishedBy: stored.publishedBy)
    }

    /// One side of a diff: a published version, or the draft.
    public enum DiffSide: Sendable, Equatable {
        case version(Int)
        case draft

        public var json: JSONValue {
            switch self {
            case .version(let n): .number(n)
            case .draft: "draft"
            }
        }
    }

    /// RFC 6902 operations that turn `from`'s document into `to`'s (applied to `from`, they give
    /// `to` exactly). `from` defaults to the latest version (`{}` when none is published: every
    /// member is an `add`); `to` to the draft, so the default answers "what would publishing change".
    public func diff(appID: String, id: String, from: DiffSide?, to: DiffSide?) throws
        -> (from: DiffSide?, to: DiffSide, operations: [JSONPatch.Operation])
    {
        func document(_ side: DiffSide) throws -> JSONValue {
            switch side {
            case .draft: return try draft(appID: appID, id: id).document
            case .version(let n): return try version(appID: appID, id: id, version: n).document
            }
        }
        var fromSide = from
        if fromSide == nil {
            let latest = try store.read { tx -> Int? in
                guard try tx.paywalls.lifecycle(appID: appID, id: id) != nil else {
                    throw ServiceError.notFound("paywall", id)
                }
                return try tx.paywalls.latestVersionNumber(paywallID: id)
            }
            fromSide = latest.map(DiffSide.version)
        }
        let toSide = to ?? .draft
        let before = try fromSide.map(document) ?? .object([:])
        let after = try document(toSide)
        return (fromSide, toSide, JSONPatch.diff(from: before, to: after))
    }
}
