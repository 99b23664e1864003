/// A position in a list ordered by `(created_at, id)`, handed to clients as `"<createdAt>.<id>"`:
/// the next page starts after it, so inserts and deletes between pages never repeat or skip an
/// item. One format for every paginated list (paywalls, keys).
public struct PageCursor: Sendable, Equatable {
    public let createdAt: Int64
    public let id: String

    /// Before every item.
    static let start = PageCursor(createdAt: Int64.min, id: "")

    /// The cursor a client sent, or `start` without one; 400 for one this server did not issue.
    package static func parse(_ text: String?) throws -> PageCursor {
        guard let text else { return .start }
        let parts = text.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let created = Int64(parts[0]) else {
            throw ServiceError(.badRequest, "invalid_cursor", "The cursor is not one this server issued.")
        }
        return PageCursor(createdAt: created, id: String(parts[1]))
    }

    package var text: String { "\(createdAt).\(id)" }
}

/// A position in a list read newest first by a sequence (the audit log, a delivery log), handed to
/// clients as the last item's sequence: the next page holds what is older, so rows appended between
/// pages never repeat or shift one.
enum SequenceCursor {
    /// The sequence to read below, or nil (from the newest) without a cursor; 400 for one this
    /// server did not issue.
    static func parse(_ text: String?) throws -> Int64? {
        guard let text else { return nil }
        guard let sequence = Int64(text), sequence > 0 else {
            throw ServiceError(.badRequest, "invalid_cursor", "The cursor is not one this server issued.")
        }
        return sequence
    }
}

/// The `limit` query parameter of a paginated list: 1 to `max`, `fallback` when absent.
public enum PageSize {
    public static let fallback = 50
    public static let max = 200
}
