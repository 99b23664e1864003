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
            throw ServiceError(.preconditionFailed, "draft_revision_mismatch",
                               "The draft changed since revision \(expectedRevision); it is at revision \(current.revision). Reload it and apply your edit again.")
        }
        let patched = current.document.applyingMergePatch(patch)
        return try saveDraft(appID: appID, id: id, document: patched, expectedRevision: expectedRevision)
    }
}
