/// Header fields serialised once, for an answer sent many times (a cached representation): the
/// connection copies ready `Name: value` lines instead of checking and writing every field per
/// response, and reads the few facts it needs (type, encoding, Vary) without searching. Fields
/// the server writes itself (Date, ETag, Content-Length, …) are left out as for any response; a
/// `Vary` here is merged with the response's own and with Accept-Encoding like any other.
public final class PreparedHeaders: @unchecked Sendable {
    public let headers: HTTPHeaders
    /// Every field line, and the lines a 304 repeats.
    let lines: FrozenBytes
    let notModifiedLines: FrozenBytes
    let contentType: String?
    let hasContentEncoding: Bool
    /// Every `Vary` value joined (nil: none), and as ready field lines without and with the
    /// Accept-Encoding the server adds when it chose the encoding.
    let vary: String?
    let varyLine: FrozenBytes
    let varyLineWithAcceptEncoding: FrozenBytes
    /// The four line sets above, in one allocation these fields own (immutable: `@unchecked Sendable`).
    private let storage: FrozenBytes.Storage

    /// The `ETag` lines of the representation these fields go with, one per entity tag given (its
    /// identity and gzip forms), quoted and checked once: an answer carrying one of these tags
    /// copies its line (`entityTag(_:)`) where each response's tag was checked, quoted and
    /// written again (about 300 instructions of every revalidation).
    let entityTags: [PreparedEntityTag]

    /// `alsoOnNotModified` names fields besides RFC 9110's (§15.4.5) a 304 repeats: metadata that
    /// guides the client's or a cache's update, such as a signature over the representation it confirms.
    /// `entityTags` are the tags the responses sent with these fields carry (`HTTPResponse.etag`,
    /// the gzip form's), as those hold them.
    public init(_ headers: HTTPHeaders, alsoOnNotModified: [String] = [], entityTags: [String] = []) {
        self.headers = headers
        self.entityTags = entityTags.map(PreparedEntityTag.init)
        var lines: [UInt8] = []
        var kept: [UInt8] = []
        for field in headers.fields where !ReservedHeader.isReserved(field.name) {
            lines.append(field: field.name, field.value)
            if ReservedHeader.keptOnNotModified(field.name)
                || alsoOnNotModified.contains(where: { $0.lowercased() == field.name.lowercased() })
            {
                kept.append(field: field.name, field.value)
            }
        }
        contentType = headers["Content-Type"]
        hasContentEncoding = headers.contains("Content-Encoding")
        vary = Vary.merged(headers, into: nil)
        var varyLine: [UInt8] = []
        if let vary { varyLine.append(field: "Vary", vary) }
        var withAcceptEncoding: [UInt8] = []
        withAcceptEncoding.append(field: "Vary", Vary.addingAcceptEncoding(vary))
        let (storage, pieces) = FrozenBytes.freeze([lines, kept, varyLine, withAcceptEncoding])
        self.storage = storage
        self.lines = pieces[0]
        notModifiedLines = pieces[1]
        self.varyLine = pieces[2]
        varyLineWithAcceptEncoding = pieces[3]
    }
}

/// Bytes outside any array, in an allocation their owner keeps (`Storage`): reading one out of a
/// class is two plain loads, where an array read out of a class is a retain and a release (two
/// atomic instructions, a dozen of them per prepared 304 head).
struct FrozenBytes: @unchecked Sendable {
    let start: UnsafeRawPointer?
    let count: Int

    var buffer: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: start, count: count) }
    /// The same bytes typed (bytes copied in from arrays: binding them to `UInt8` is sound).
    var bytes: UnsafeBufferPointer<UInt8> { buffer.bindMemory(to: UInt8.self) }

    /// The allocation pieces point into; freed when its owner (a class holding it in a `let`) goes.
    final class Storage: @unchecked Sendable {
        let base: UnsafeMutableRawPointer
        init(byteCount: Int) { base = .allocate(byteCount: max(1, byteCount), alignment: 16) }
        deinit { base.deallocate() }
    }

    /// `pieces` copied into one allocation, and where each lies.
    static func freeze(_ pieces: [[UInt8]]) -> (Storage, [FrozenBytes]) {
        let storage = Storage(byteCount: pieces.reduce(0) { $0 + $1.count })
        var offset = 0
        var frozen: [FrozenBytes] = []
        for piece in pieces {
            piece.withUnsafeBytes { bytes in
                if let source = bytes.baseAddress {
                    (storage.base + offset).copyMemory(from: source, byteCount: bytes.count)
                }
            }
            frozen.append(FrozenBytes(start: UnsafeRawPointer(storage.base + offset), count: piece.count))
            offset += piece.count
        }
        return (storage, frozen)
    }
}

extension PreparedHeaders {
    /// The prepared line of `tag` (as a response holds it), if it is one of the prepared tags. By
    /// index, and a value of plain fields returned: iterating the tags, or returning one, retained
    /// and released it (atomic instructions, per revalidation).
    @inline(__always)
    func entityTag(_ tag: String) -> PreparedEntityTag.Ready? {
        // By length first: a representation's identity and gzip tags share all but their end.
        let count = tag.utf8.count
        for i in entityTags.indices where entityTags[i].given.utf8.count == count && entityTags[i].given == tag {
            return entityTags[i].ready
        }
        return nil
    }
}

/// An entity tag as a response holds it, and its field line as the assembly would write it, in an
/// allocation the tag owns; the assembly reads its plain fields (`Ready`), never the object.
final class PreparedEntityTag: @unchecked Sendable {
    let given: String
    /// What the assembly reads of a tag, in plain fields.
    struct Ready {
        let isWeak: Bool
        /// `ETag: "…"` and CRLF: quoted if the tag was not, unsafe bytes dropped (`append(fieldText:)`).
        let line: FrozenBytes
        /// The tag's bytes as given, which `If-None-Match` is compared with.
        let given: FrozenBytes
    }
    let ready: Ready
    private let storage: FrozenBytes.Storage

    init(_ tag: String) {
        given = tag
        let quoted = EntityTag.isQuoted(tag) ? tag : "\"" + tag + "\""
        var line: [UInt8] = []
        line.append(literal: "ETag: ")
        line.append(fieldText: quoted)
        line.append(literal: "\r\n")
        let (storage, pieces) = FrozenBytes.freeze([line, Array(tag.utf8)])
        self.storage = storage
        ready = Ready(isWeak: EntityTag.isWeak(quoted), line: pieces[0], given: pieces[1])
    }
}

/// The `Vary` field: a response's values are merged into one field (several `Vary` fields mean
/// their union; each name once, case-insensitively; `*` absorbs the rest), and the server adds
/// Accept-Encoding when it chose the encoding.
enum Vary {
    static func merged(_ headers: HTTPHeaders, into existing: String?) -> String? {
        var names: [String] = []
        func add(_ value: String) {
            for part in value.split(separator: ",") {
                var name = part[...]
                while let first = name.first, first == " " || first == "\t" { name = name.dropFirst() }
                while let last = name.last, last == " " || last == "\t" { name = name.dropLast() }
                let text = String(name)
                guard !text.isEmpty, !names.contains(where: { HTTPHeaders.same($0, text) }) else { continue }
                names.append(text)
            }
        }
        if let existing { add(existing) }
        for field in headers.fields where HTTPHeaders.same(field.name, "Vary") { add(field.value) }
        if names.isEmpty { return nil }
        if names.contains("*") { return "*" }
        return names.joined(separator: ", ")
    }

    static func addingAcceptEncoding(_ vary: String?) -> String {
        guard let vary else { return "Accept-Encoding" }
        if vary == "*" { return vary }
        return ByteClass.containsLowercased(vary, "accept-encoding") ? vary : vary + ", Accept-Encoding"
    }
}
