/// Turns a handler's response into what goes on the wire: the representation (identity or gzip), the
/// conditional-GET outcome (304, or 412 for an unsafe method), the serialized head and the framing.
/// Pure — no socket, clock or connection state — so it is tested with tables (ResponseAssemblyTests);
/// the connection only writes what it answers.
struct ResponseAssembly {
    /// What the assembly needs to know of the request.
    struct RequestFacts {
        var method: HTTPMethod
        var version: HTTPVersion
        var headers: HTTPRequestHeaders
        var requestID: RequestID
    }

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

    var status: HTTPStatus
    var payload: Payload
    /// Whether the connection must close after this response (the caller's decision, or HTTP/1.0
    /// streaming, which can only end by closing).
    var closeAfter: Bool

    /// Assembles `response` for `request`, writing the head into `head` (emptied first, capacity kept).
    /// `closeAfter` is whether the connection will close after the response; `dateLine` is the
    /// `Date:` field line, CRLF included.
    init<Head: HeadWriter>(
        _ original: HTTPResponse, for request: RequestFacts, closeAfter: Bool, settings: Settings,
        dateLine: [UInt8], into head: inout Head
    ) {
        var response = original
        var status = response.status
        var closeAfter = closeAfter
        let isHead = request.method == .HEAD

        // Representation selection.
        var body: [UInt8] = []
        var etag = response.etag ?? response.headers["ETag"]
        if let tag = etag, !EntityTag.isQuoted(tag) {
            etag = "\"" + tag + "\""  // a handler forgot the quotes
        }
        var gzipped = false
        var addVary = false
        if case .bytes(let identity) = response.body {
            body = identity
            if !status.forbidsBody && response.headers["Content-Encoding"] == nil
                && response.prepared?.hasContentEncoding != true
            {
                let eligible =
                    response.gzip != nil
                    || (response.compressible && identity.count >= settings.gzipMinBytes
                        && ContentNegotiation.isCompressible(
                            contentType: response.headers["Content-Type"] ?? response.prepared?.contentType))
                if eligible {
                    addVary = true
                    let preference = ContentNegotiation.encodingPreference(request.headers)
                    if preference.gzipAllowed {
                        if let precomputed = response.gzip {
                            body = precomputed.body
                            etag = precomputed.etag ?? etag.map(HTTPResponse.gzipETag)
                            gzipped = true
                        } else if let compressed = Gzip.compress(identity, level: settings.gzipLevel),
                            compressed.count < identity.count || preference.identityForbidden
                        {
                            body = compressed
                            etag = etag.map(HTTPResponse.gzipETag)
                            gzipped = true
                        }
                    }
                }
            }
        }
        // A compressible stream is gzipped chunk by chunk (it has no length, so no "is it smaller" test).
        var streamGzip: GzipStream?
        if case .stream = response.body, response.compressible, !status.forbidsBody,
            response.headers["Content-Encoding"] == nil,
            ContentNegotiation.isCompressible(contentType: response.headers["Content-Type"])
        {
            addVary = true
            if ContentNegotiation.encodingPreference(request.headers).gzipAllowed,
                let stream = GzipStream(level: settings.gzipLevel)
            {
                streamGzip = stream
                gzipped = true
            }
        }

        // The chosen tag's line, when the prepared fields have it ready.
        var preparedTag = etag.flatMap { response.prepared?.entityTag($0) }

        // Conditional GET (strong validators only; comparison itself is weak).
        var notModified = false
        if let tag = etag, (200..<300).contains(status.code), !(preparedTag?.isWeak ?? EntityTag.isWeak(tag)),
            let matched = ContentNegotiation.ifNoneMatch(request.headers, etag: tag), matched
        {
            if request.method.isSafeRead {
                notModified = true
                status = .notModified
            } else {
                response =
                    HTTPError(
                        .preconditionFailed, code: "precondition_failed",
                        detail: "If-None-Match matched the current representation."
                    ).response
                status = .preconditionFailed
                body = []
                if case .bytes(let b) = response.body { body = b }
                etag = nil
                preparedTag = nil
                addVary = false
                gzipped = false
            }
        }

        let prepared = response.prepared
        let ownVary = response.headers.contains("Vary")
        head.removeAllBytes()
        head.appendStatusLine(status)
        head.append(bytes: dateLine)
        if let prepared {
            if response.headers.isEmpty {
                head.append(bytes: notModified ? prepared.notModifiedLines : prepared.lines)
            } else {
                // A field set on the response replaces the prepared one of the same name.
                for field in prepared.headers.fields
                where !ReservedHeader.isReserved(field.name)
                    && !response.headers.contains(field.name)
                {
                    if notModified && !ReservedHeader.keptOnNotModified(field.name) { continue }
                    head.append(field: field.name, field.value)
                }
            }
        }
        for field in response.headers.fields where !ReservedHeader.isReserved(field.name) {
            if notModified && !ReservedHeader.keptOnNotModified(field.name) { continue }
            head.append(field: field.name, field.value)
        }
        if let preparedTag {
            head.append(bytes: preparedTag.line)
        } else if let tag = etag {
            head.append(literal: "ETag: ")
            head.append(fieldText: tag)
            head.append(literal: "\r\n")
        }
        if let prepared, !ownVary {
            head.append(bytes: addVary ? prepared.varyLineWithAcceptEncoding : prepared.varyLine)
        } else {
            let vary = Vary.merged(response.headers, into: prepared?.vary)
            if let vary = addVary ? Vary.addingAcceptEncoding(vary) : vary { head.append(field: "Vary", vary) }
        }
        if gzipped && !notModified { head.append(literal: "Content-Encoding: gzip\r\n") }
        head.append(literal: "X-Request-Id: ")
        request.requestID.write(into: &head)
        head.append(literal: "\r\n")

        var payload = Payload.bytes([])
        if notModified || status.forbidsBody {
            body = []
        } else if case .stream(let producer) = response.body {
            let chunked = request.version.minor >= 1
            if chunked {
                head.append(literal: "Transfer-Encoding: chunked\r\n")
            } else {
                closeAfter = true
            }
            if !isHead { payload = .stream(producer, chunked: chunked, gzip: streamGzip) }
        } else {
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
