import PaywallFormat

extension PaywallService {
    /// Applies a JSON Merge Patch (RFC 7396) to the draft and saves the result, when
    /// `expectedRevision` is still the draft's revision (the same optimistic concurrency as a whole
    /// save: a stale revision answers `draft_revision_mismatch`, 412).
    public func patchDraft(appID: String, id: String, patch: JSONValue, expectedRevision: Int64) throws -> Draft {
        guard patch.objectValue != nil else {
            throw ServiceError.badField("$.mergePatch", "not_an_object", "A merge patch of a draft is a JSON object.")
        }
        let current = try draft(appID: appID, id: id)
        guard current.revision == expectedRevision else {
            throw ServiceError(
                .preconditionFailed, "draft_revision_mismatch",
                "The draft changed since revision \(expectedRevision); it is at revision \(current.revision). Reload it and apply your edit again."
            )
        }
        let patched = current.document.applyingMergePatch(patch)
        try Self.checkEdit(patched, of: current.document)
        var saved = try saveDraft(appID: appID, id: id, document: patched, expectedRevision: expectedRevision)
        saved.editWarnings = current.document.mergePatchLosses(patch).map {
            ValidationIssue(path: $0.path.description, message: $0.message, code: "merge_patch_replaced")
        }
        return saved
    }
}

extension PaywallService {
    /// Applies an RFC 6902 JSON Patch to the draft and saves the result under the same optimistic
    /// concurrency. Its `test` operations let an editor say what it expects to change ("replace
    /// this text, if it still reads …"): a failed test answers 409 and changes nothing.
    public func applyJSONPatch(appID: String, id: String, patch: JSONValue, expectedRevision: Int64, path: String = "$")
        throws -> Draft
    {
        let operations: [JSONPatch.Operation]
        do { operations = try JSONPatch.parse(patch) } catch {
            throw ServiceError(.badRequest, "invalid_patch", error.message, errors: [Self.issue(error, path: path)])
        }
        let current = try draft(appID: appID, id: id)
        guard current.revision == expectedRevision else {
            throw ServiceError(
                .preconditionFailed, "draft_revision_mismatch",
                "The draft changed since revision \(expectedRevision); it is at revision \(current.revision). Reload it and apply your edit again."
            )
        }
        let patched: JSONValue
        // The patch writes no more than the draft may hold (a copy pays for what it copies).
        do {
            patched = try JSONPatch.apply(
                operations, to: current.document, budget: JSONPatch.Budget(maxBytes: maxDraftBytes))
        } catch {
            switch error.kind {
            case .testFailed:
                throw ServiceError(
                    .conflict, "patch_test_failed", error.message, errors: [Self.issue(error, path: path)])
            case .unresolvable, .malformed:
                throw ServiceError(
                    .unprocessable, "patch_unresolvable", error.message, errors: [Self.issue(error, path: path)])
            case .budgetExceeded:
                throw ServiceError(
                    .contentTooLarge, "patch_too_large", error.message, errors: [Self.issue(error, path: path)])
            case .tooDeep:
                throw ServiceError(
                    .unprocessable, "patch_too_deep", error.message, errors: [Self.issue(error, path: path)])
            }
        }
        try Self.checkEdit(patched, of: current.document)
        return try saveDraft(appID: appID, id: id, document: patched, expectedRevision: expectedRevision)
    }

    /// Where in the request the patch failed: `$[i].path` for a REST body, `$.patch[i].path` in MCP.
    private static func issue(_ failure: JSONPatch.Failure, path: String) -> ValidationIssue {
        let location = path + failure.jsonPath.dropFirst()
        let code =
            switch failure.kind {
            case .malformed: "invalid_patch"
            case .unresolvable: "patch_unresolvable"
            case .testFailed: "patch_test_failed"
            case .budgetExceeded: "patch_too_large"
            case .tooDeep: "patch_too_deep"
            }
        return ValidationIssue(path: location, message: failure.message, code: code)
    }
}
