import PaywallFormat

/// The limits every draft write is held to, whatever the entry point (REST, MCP, CLI): a draft is
/// no larger than a `PUT` may send, and an edit (a JSON Patch, a merge patch) does not push it past
/// a document limit. And a draft stored over them before (or written into the database directly)
/// answers a clear error, never a 500, and can always be replaced whole, so no paywall is stuck.
extension PaywallService {
    /// 413 `draft_too_large` when the canonical text of a draft to save is over `maxDraftBytes`.
    func checkSize(_ text: String) throws {
        let bytes = text.utf8.count
        guard bytes > maxDraftBytes else { return }
        let message =
            "The draft would be \(bytes) bytes, more than the limit of \(maxDraftBytes) (http.maxBodyBytes); nothing was saved."
        throw ServiceError(
            .contentTooLarge, "draft_too_large", message,
            errors: [ValidationIssue(path: "$", message: message, code: "draft_too_large")])
    }

    /// 422 `draft_limit_exceeded` when an edit makes the node tree break a document limit (nodes
    /// written, nesting, nodes rendered) that the draft kept, or break it further. Saving a whole
    /// document stays free to be invalid (drafts are work in progress); an edit is held to the limit
    /// because a small one can describe a large tree (issue 35).
    static func checkEdit(_ patched: JSONValue, of current: JSONValue) throws {
        let grown = DocumentLimits.grown(from: current, to: patched)
        guard let first = grown.first else { return }
        throw ServiceError(
            .unprocessable, "draft_limit_exceeded",
            "The edit would take the draft over a document limit (\(first.code) at \(first.path): \(first.message)); nothing was saved.",
            errors: grown)
    }

    /// The draft's revision without reading its document: an `If-Match: *` save of a draft that
    /// cannot be read (too large, or damaged) still replaces it.
    public func draftRevision(appID: String, id: String) throws -> Int64 {
        guard let row = try store.read({ tx in try tx.paywalls.paywall(appID: appID, id: id) }) else {
            throw ServiceError.notFound("paywall", id)
        }
        return row.draftRevision
    }

    /// The stored draft parsed. One over the parser's limits (8 MiB, 128 levels: stored before the
    /// limits, or written into the database) is counted as a data failure and answers 409
    /// `stored_draft_too_large`, saying how to repair it; any other unreadable text stays a 500.
    func storedDraftDocument(_ stored: StoredDraft, id: String) throws -> JSONValue {
        do { return try JSONValue(parsing: Array(stored.document.utf8)) } catch {
            guard error.code == .sizeLimitExceeded || error.code == .depthLimitExceeded else {
                throw DataFailure.recorded(
                    .storedDocument, "the draft of paywall '\(id)' is not valid JSON: \(error)", in: activity)
            }
            activity.recordDataFailure(.storedDocument)
            throw ServiceError(
                .conflict, "stored_draft_too_large",
                "The stored draft of paywall '\(id)' cannot be read: \(error.message). Replace it with PUT …/draft (If-Match: *), or archive the paywall."
            )
        }
    }
}
