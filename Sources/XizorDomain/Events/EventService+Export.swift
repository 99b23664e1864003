import Foundation
import PaywallFormat

extension EventService {
    /// Events per page of an export: each page is one read (a short transaction), so an export of
    /// millions of events neither holds a snapshot for its whole length nor keeps them in memory.
    static let exportPage = 1_000

    /// Streams the app's events whose `timestamp` is in [from, to) as NDJSON, a page at a time, in
    /// (id, timestamp) order; `write` gets each page's lines (and may throw to stop: the client went away).
    /// Returns how many were written.
    @discardableResult
    public func export(
        appID: String, from: Int64?, to: Int64?, environment: EnvironmentFilter,
        write: ([UInt8]) throws -> Void
    ) throws -> Int {
        var after: EventKey?
        var count = 0
        while true {
            let page = try store.read { tx in
                try tx.events.export(
                    appID: appID, from: from, to: to, environment: environment, after: after,
                    limit: EventService.exportPage)
            }
            guard let last = page.last else { return count }
            var bytes: [UInt8] = []
            for exported in page {
                bytes += try exportLine(exported).canonicalBytes
                bytes.append(UInt8(ascii: "\n"))
            }
            try write(bytes)
            count += page.count
            after = EventKey(id: last.event.id, occurredAt: last.event.occurredAt)
            if page.count < EventService.exportPage { return count }
        }
    }

    /// A `from`/`to` bound: milliseconds since 1970 or an RFC 3339 date-time (400 otherwise).
    public static func time(_ raw: String?, name: String) throws -> Int64? {
        guard let raw else { return nil }
        if let ms = Int64(raw), ms >= 0 { return ms }
        if let ms = parseTimestamp(raw) { return ms }
        throw ServiceError(
            .badRequest, "invalid_time", "'\(name)' is milliseconds since 1970 or an RFC 3339 date-time, not '\(raw)'.")
    }

    /// One event as an export line: what the SDK sent (`timestamp` in milliseconds) and when it was received.
    func exportLine(_ exported: ExportedEvent) throws -> JSONValue {
        let e = exported.event
        var o: [String: JSONValue] = [
            "id": .string(e.id), "name": .string(e.name), "timestamp": .number(Int(e.occurredAt)),
            "receivedAt": .number(Int(exported.receivedAt)), "environment": .string(e.environment.rawValue),
        ]
        if let v = e.placement { o["placement"] = .string(v) }
        if let v = e.paywallID { o["paywallId"] = .string(v) }
        if let v = e.version { o["version"] = .number(v) }
        if let v = e.subscriberID { o["subscriberId"] = .string(v) }
        if let v = e.experimentID { o["experimentId"] = .string(v) }
        if let v = e.variant { o["variant"] = .string(v) }
        if let v = e.context {
            o["context"] = try DataFailure.storedJSON(
                Array(v.utf8), what: "the context of event '\(e.id)'", activity: activity)
        }
        if let v = e.properties {
            o["properties"] = try DataFailure.storedJSON(
                Array(v.utf8), what: "the properties of event '\(e.id)'", activity: activity)
        }
        return .object(o)
    }
}
