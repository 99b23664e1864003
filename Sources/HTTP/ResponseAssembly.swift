/// Turns a handler's response into what goes on the wire: the representation (identity or gzip), the
/// conditional-GET outcome (304, or 412 for an unsafe method), the serialized head and the framing.
/// Pure — no socket, clock or connection state — so it is tested with tables (ResponseAssemblyTests);
/// the connection only writes what it answers.
struct ResponseAssembly {
    /// The server settings the assembly reads.
    struct Settings {
        var gzipMinBytes: Int
        var gzipLevel: Int32
    }

    /// What to send.
    enum Payload {
        /// `body` after the head (empty for HEAD, 304 and bodiless statuses).
        case bytes([UInt8])
        /// The head, then the producer's chunks (chunked on HTTP/1.1, until close on HTTP/1.0),
        /// gzipped through `gzip` when the head says so.
        case stream(@Sendable (HTTPBodyWriter) throws -> Void, chunked: Bool, gzip: GzipStream?)
    }

    /// The body the assembly chose to send, decided before any body is copied.
    private enum Encoding {
        case identity
        /// The response's precomputed gzip form.
        case precomputedGzip
        /// Compressed here (smaller than the identity, or the identity was refused).
        case compressed([UInt8])
        /// A stream gzipped chunk by chunk.
        case streamGzip

        var isGzip: Bool {
            switch self {
            case .precomputedGzip, .compressed, .streamGzip: true
            case .identity: false
            }
        }
    }

    /// Where the chosen entity tag is: in the response, read in place while it is borrowed (a
    /// local copy of the String was a retain and a release, twice per revalidation), or made here.
    private enum Tag {
        case none
        /// `HTTPResponse.etag`, quoted.
        case identity
        /// The precomputed gzip form's (`HTTPResponse.withETag(gzip: true, _:)`).
        case gzip
        /// A handler's tag quoted here, or a gzip form's derived from the identity's.
        case made(String)
    }

    /// `body` over the text of `tag`; nil for `.none`.
    private static func withTag<R>(_ tag: Tag, of response: borrowing HTTPResponse, _ body: (String) -> R) -> R? {
        switch tag {
        case .none: nil
        case .identity: response.withETag(gzip: false, body)
        case .gzip: response.withETag(gzip: true, body)
        case .made(let text): body(text)
        }
    }

    /// Whether `If-None-Match` names `tag` (nil without the field): by the prepared tag's bytes
    /// when there is one, else by its text.
    private static func ifNoneMatch(
        _ request: borrowing HTTPRequest, _ tag: Tag, _ prepared: PreparedEntityTag.Ready?,
        of response: borrowing HTTPResponse
    ) -> Bool? {
        if let prepared { return request.ifNoneMatchMatches(tagBytes: prepared.given.bytes) }
        return withTag(tag, of: response) { request.ifNoneMatchMatches($0) } ?? nil
    }

    var status: HTTPStatus
    var payload: Payload
    /// Whether the connection must close after this response (the caller's decision, or HTTP/1.0
    /// streaming, which can only end by closing).
    var closeAfter: Bool

    /// Assembles `response` for `request`, writing the head into `head` (emptied first, capacity kept).
    /// `closeAfter` is whether the connection will close after the response; `dateLine` is the
    /// `Date:` field line, CRLF included (bytes the caller keeps alive for the call). The response
    /// and the request are borrowed: an initialiser's arguments are otherwise owned, and the
    /// response's fields (constants of its box) were then copied out, a retain and a release
    /// each, instead of read in place. The request itself, not a summary of it built per response:
    /// the negotiation reads its fields in place (`HTTPRequest.encodingPreference`,
    /// `ifNoneMatchMatches(tagBytes:)`), and a prepared tag is compared by its bytes.
    init<Head: HeadWriter>(
        _ original: borrowing HTTPResponse, for request: borrowing HTTPRequest, closeAfter: Bool, settings: Settings,
        dateLine: UnsafeRawBufferPointer, into head: inout Head
    ) {
        // Read where they are used, from the borrowed response (a local copy is a retain and a
        // release, atomic instructions each); no body is read until one is sent.
        var prepared: PreparedHeaders? { original.prepared }
        var ownHeaders: HTTPHeaders { original.headers }
        var status = original.status
        var closeAfter = closeAfter
        let isHead = request.method == .HEAD
        let isStream = original.isStream

        // Representation selection: the encoding and its tag.
        var tag = Tag.none
        if original.withETag(gzip: false, EntityTag.isQuoted) == true {
            tag = .identity
        } else if let given = original.etag ?? ownHeaders["ETag"] {
            tag = .made(EntityTag.isQuoted(given) ? given : "\"" + given + "\"")  // a handler forgot the quotes
        }
        var encoding = Encoding.identity
        var addVary = false
        if !isStream && !status.forbidsBody && ownHeaders["Content-Encoding"] == nil
            && prepared?.hasContentEncoding != true
        {
            let hasGzip = original.hasGzip
            let eligible =
                hasGzip
                || (original.compressible && (original.byteCount ?? 0) >= settings.gzipMinBytes
                    && ContentNegotiation.isCompressible(
                        contentType: ownHeaders["Content-Type"] ?? prepared?.contentType))
            if eligible {
                addVary = true
                let preference = request.encodingPreference
                if preference.gzipAllowed {
                    if hasGzip {
                        encoding = .precomputedGzip
                        tag =
                            original.withETag(gzip: true, { _ in Tag.gzip })
                            ?? Self.withTag(tag, of: original) { .made(HTTPResponse.gzipETag(for: $0)) } ?? .none
                    } else {
                        let identity = original.bytes(gzip: false)
                        if let compressed = Gzip.compress(identity, level: settings.gzipLevel),
                            compressed.count < identity.count || preference.identityForbidden
                        {
                            encoding = .compressed(compressed)
                            tag = Self.withTag(tag, of: original) { .made(HTTPResponse.gzipETag(for: $0)) } ?? .none
                        }
                    }
                }
            }
        }
        // A compressible stream is gzipped chunk by chunk (it has no length, so no "is it smaller" test).
        var streamGzip: GzipStream?
        if isStream, original.compressible, !status.forbidsBody,
            ownHeaders["Content-Encoding"] == nil,
            ContentNegotiation.isCompressible(contentType: ownHeaders["Content-Type"])
        {
            addVary = true
            if request.encodingPreference.gzipAllowed,
                let stream = GzipStream(level: settings.gzipLevel)
            {
                streamGzip = stream
                encoding = .streamGzip
            }
        }

        // The chosen tag's line, when the prepared fields have it ready.
        let preparedTag: PreparedEntityTag.Ready? =
            switch tag {
            case .none: nil
            case .identity: original.preparedETag(gzip: false)
            case .gzip: original.preparedETag(gzip: true)
            case .made(let text): prepared?.entityTag(text)
            }

        // Conditional GET (strong validators only; comparison itself is weak).
        var notModified = false
        if (200..<300).contains(status.code),
            Self.withTag(tag, of: original, { !(preparedTag?.isWeak ?? EntityTag.isWeak($0)) }) == true,
            Self.ifNoneMatch(request, tag, preparedTag, of: original) == true
        {
            if request.method.isSafeRead {
                notModified = true
                status = .notModified
            } else {
                // The 412 is assembled as the response it is (no tag, so no conditional again):
                // this response's fields stay constants, and the encoding needs no refusal case.
                let refusal =
                    HTTPError(
                        .preconditionFailed, code: "precondition_failed",
                        detail: "If-None-Match matched the current representation."
                    ).response
                self = ResponseAssembly(
                    refusal, for: request, closeAfter: closeAfter, settings: settings, dateLine: dateLine, into: &head)
                return
            }
        }

        let ownVary = ownHeaders.contains("Vary")
        // The prepared lines chosen before anything is written: plain pointers into storage the
        // response holds (through `original`, alive and unchanged until this returns), so the
        // appends below keep no object alive (each kept the prepared fields retained).
        let fieldLines = prepared.map { notModified ? $0.notModifiedLines : $0.lines }
        let tagLine = preparedTag?.line
        let varyLine = prepared.map { addVary ? $0.varyLineWithAcceptEncoding : $0.varyLine }
        head.removeAllBytes()
        head.appendStatusLine(status)
        head.appendBytes(dateLine)
        // (Not `if let prepared`: bound to a local, the prepared fields were retained and released.)
        if let fieldLines, ownHeaders.isEmpty {
            head.append(frozen: fieldLines)
        } else if let prepared {
            // A field set on the response replaces the prepared one of the same name.
            for field in prepared.headers.fields
            where !ReservedHeader.isReserved(field.name)
                && !ownHeaders.contains(field.name)
            {
                if notModified && !ReservedHeader.keptOnNotModified(field.name) { continue }
                head.append(field: field.name, field.value)
            }
        }
        for field in ownHeaders.fields where !ReservedHeader.isReserved(field.name) {
            if notModified && !ReservedHeader.keptOnNotModified(field.name) { continue }
            head.append(field: field.name, field.value)
        }
        if let tagLine {
            head.append(frozen: tagLine)
        } else {
            Self.withTag(tag, of: original) { text in
                head.append(literal: "ETag: ")
                head.append(fieldText: text)
                head.append(literal: "\r\n")
            }
        }
        if let varyLine, !ownVary {
            head.append(frozen: varyLine)
        } else {
            let vary = Vary.merged(ownHeaders, into: prepared?.vary)
            if let vary = addVary ? Vary.addingAcceptEncoding(vary) : vary { head.append(field: "Vary", vary) }
        }
        if encoding.isGzip && !notModified { head.append(literal: "Content-Encoding: gzip\r\n") }
        request.requestID.writeLine(into: &head)

        var payload = Payload.bytes([])
        if notModified || status.forbidsBody {
            // No body.
        } else if case .stream(let producer) = original.body {
            let chunked = request.version.minor >= 1
            if chunked {
                head.append(literal: "Transfer-Encoding: chunked\r\n")
            } else {
                closeAfter = true
            }
            if !isHead { payload = .stream(producer, chunked: chunked, gzip: streamGzip) }
        } else {
            let body: [UInt8]
            switch encoding {
            case .identity, .streamGzip: body = original.bytes(gzip: false)
            case .precomputedGzip: body = original.bytes(gzip: true)
            case .compressed(let bytes): body = bytes
            }
            head.append(literal: "Content-Length: ")
            head.append(decimal: body.count)
            head.append(literal: "\r\n")
            if !isHead { payload = .bytes(body) }
        }
        if closeAfter {
            head.append(literal: "Connection: close\r\n")
        } else if request.version.minor == 0 {
            head.append(literal: "Connection: keep-alive\r\n")
        }
        head.append(literal: "\r\n")
        self.status = status
        self.payload = payload
        self.closeAfter = closeAfter
    }
}
