/// An incremental HTTP/1.1 request parser: a byte-level state machine that gives the same
/// result whether a message arrives whole or one byte at a time, and rejects anything whose
/// framing could be read two ways (RFC 9112 §6.3, §11.2).
///
/// This file: the state machine of the request line and the header section, and a
/// `Content-Length` body. Beside it, each with no access to the state here: the rules the header
/// fields of a complete head must keep (`HTTPRequestParser+HeadFields.swift`), the chunked-body
/// decoder (`HTTPRequestParser+ChunkedBody.swift`, its own state private to it), the request
/// line's version (`HTTPVersion.swift`), the runs the hot states take at once (`WordScan.run`),
/// the whole plain lines they take in one step (`WholeLine`) and the limits (`HTTPParserLimits.swift`).
public struct HTTPRequestParser: Sendable {
    /// What one call to `parse` found.
    public enum Event: Sendable {
        /// Everything given was consumed; the message is not complete yet.
        case needMoreData
        /// The head is complete and a body follows (`expectsContinue` says whether to send 100).
        case headComplete
        /// A whole request; bytes after it (pipelined requests) were not consumed.
        case request(HTTPRequest)
        /// The request is malformed; the connection must answer `error.status` and close.
        case failure(HTTPParseError)
    }

    private enum State: UInt8 {
        case start, leadingLF, method, target, version, requestLineLF
        case fieldStart, fieldName, fieldValueOWS, fieldValue, fieldLF, headEndLF
        case lengthBody
        /// Where it is inside the chunked body is the decoder's (`chunked`).
        case chunkedBody
        case failed
    }

    public let limits: HTTPParserLimits
    private var state: State = .start
    private var failure: HTTPParseError = .invalidMethod

    /// The request line and header section exactly as received (from the method's first byte);
    /// every offset below points into it. Bytes are copied in at most a few pieces per call (when
    /// the request line ends, when the head ends, when the input runs out), not run by run.
    private var head: [UInt8] = []
    private var fields: [HTTPRequestHeaders.Field] = []
    private var methodEnd = 0, targetStart = 0, targetEnd = 0, versionStart = 0, versionEnd = 0
    private var requestLineBytes = 0
    private var emptyLines = 0
    private var headerBytes = 0
    private var fieldStart = 0, nameEnd = 0, valueStart = 0, valueEnd = 0
    private var version = HTTPVersion.http1_1
    /// The request line, taken whole, showed a target without `#`, `?` or `%` (false when its
    /// bytes went through the states: the target is then scanned when the head completes).
    private var plainTarget = false

    private var pending: HTTPRequest?
    /// A finished request whose box the next head's request is built in (`recycle(_:reusing:)`).
    private var spare: HTTPRequest?
    private var body: [UInt8] = []
    /// Bytes of a `Content-Length` body still to come.
    private var remaining = 0
    private var chunked = ChunkedBody()

    /// Whether the request whose head was just reported asked for `100 Continue`.
    public private(set) var expectsContinue = false

    public init(limits: HTTPParserLimits = HTTPParserLimits()) {
        self.limits = limits
    }

    /// What a head's buffer starts with: most requests' heads fit, the rest grow it.
    static let headCapacity = 512

    /// A finished request's head buffer, emptied (`HTTPRequest.reclaimHeadBuffer`), to read the
    /// next head into, unless the parser has one already (a pipelined request started meanwhile).
    public mutating func recycle(_ buffer: [UInt8]) {
        precondition(buffer.isEmpty, "a recycled head buffer is empty")
        guard head.capacity == 0 else { return }
        head = buffer
    }

    /// The same, with the finished request itself, whose box the next request is built in
    /// (`HTTPRequest.reuse`) when nothing else holds it by then.
    mutating func recycle(_ buffer: [UInt8], reusing request: consuming HTTPRequest) {
        recycle(buffer)
        spare = request
    }

    /// The request whose head was just reported by `.headComplete`, without its body (which is
    /// still to be read): what the server checks before it reads or buffers a body byte.
    public var headOfPendingRequest: HTTPRequest? { pending }

    /// Empty lines tolerated before a request line.
    public static let maxEmptyLines = 4

    /// True between messages: no byte of the next request has arrived yet (an empty line before
    /// a request line is a byte of it: the header deadline runs from there). Stored, not derived
    /// from the state: the connection reads it before every parse, and a computed property read
    /// through the connection's stored parser copied the whole parser (retaining its buffers).
    public private(set) var isIdle = true
    /// True while a request's body is being read.
    public var isReadingBody: Bool { state.rawValue >= State.lengthBody.rawValue && state != .failed }
    /// Body bytes buffered so far for the request being read (what the server's body budget charges).
    public var bufferedBodyBytes: Int { body.count }
    /// The `Content-Length` of the request whose head was just reported; nil for a chunked body.
    public private(set) var declaredBodyLength: Int?

    /// Whether the parser is inside a request line or header section (its bytes belong to `head`).
    private var isInHead: Bool { state.rawValue >= State.method.rawValue && state.rawValue <= State.headEndLF.rawValue }

    /// Parses from an array (convenience for tests and small inputs).
    public mutating func parse(_ bytes: [UInt8]) -> (consumed: Int, event: Event) {
        bytes.withUnsafeBytes { parse($0) }
    }

    /// Consumes bytes until a request completes, the head completes with a body to follow,
    /// the input runs out, or the input is rejected.
    public mutating func parse(_ input: UnsafeRawBufferPointer) -> (consumed: Int, event: Event) {
        let bytes = input.bindMemory(to: UInt8.self)
        var i = 0
        let n = bytes.count
        if n > 0 { isIdle = false }
        // Head bytes of this call start at `from` (nil: none yet); input byte k sits at head offset
        // `base + k` once copied.
        var from: Int? = isInHead ? 0 : nil
        var base = head.count
        /// Copies this call's head bytes before `k` into `head` (before anything reads `head`).
        func flush(upTo k: Int) {
            if let start = from, k > start { head.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<k])) }
            from = k
            base = head.count - k
        }
        while i < n {
            let b = bytes[i]
            switch state {
            case .failed:
                return (i, .failure(failure))

            case .start:
                if b == ByteClass.cr {
                    state = .leadingLF
                    i += 1
                    continue
                }
                if b == ByteClass.lf { return fail(.bareLineFeed, i) }
                guard ByteClass.isToken(b) else { return fail(.invalidMethod, i) }
                if head.capacity == 0 { head.reserveCapacity(HTTPRequestParser.headCapacity) }
                from = i
                base = head.count - i
                requestLineBytes = 1
                state = .method
                // The whole line at once when it is plain (`WholeLine`); else byte by byte below.
                if let line = WholeLine.request(bytes, at: i, limit: limits.maxRequestLineBytes) {
                    methodEnd = base + line.methodEnd
                    targetStart = methodEnd + 1
                    plainTarget = line.plainTarget
                    targetEnd = base + line.targetEnd
                    versionStart = targetEnd + 1
                    versionEnd = base + line.cr
                    requestLineBytes = line.cr + 1 - i
                    state = .requestLineLF
                    i = line.cr + 1
                    continue
                }

            case .leadingLF:
                guard b == ByteClass.lf else { return fail(.bareCarriageReturn, i) }
                // RFC 9112 §2.2 asks servers to ignore at least one empty line before a request;
                // a few are tolerated, an endless preamble is a client holding the connection.
                emptyLines += 1
                if emptyLines > HTTPRequestParser.maxEmptyLines { return fail(.tooManyEmptyLines, i) }
                state = .start

            case .method:
                plainTarget = false
                requestLineBytes += 1
                if requestLineBytes > limits.maxRequestLineBytes { return fail(.requestLineTooLong, i) }
                if b == ByteClass.space {
                    methodEnd = base + i
                    targetStart = methodEnd + 1
                    state = .target
                } else if !ByteClass.isToken(b) {
                    return fail(.invalidMethod, i)
                }

            case .target:
                // A run of target bytes at once (within the request-line limit); past it, `b` ends the
                // target or is refused.
                let targetRun = WordScan.run(
                    bytes, from: i, limit: limits.maxRequestLineBytes - requestLineBytes, words: WordScan.allTarget,
                    ByteClass.isTarget)
                if targetRun > 0 {
                    requestLineBytes += targetRun
                    i += targetRun
                    continue
                }
                requestLineBytes += 1
                if requestLineBytes > limits.maxRequestLineBytes { return fail(.requestLineTooLong, i) }
                if b == ByteClass.space {
                    guard base + i > targetStart else { return fail(.invalidRequestTarget, i) }
                    targetEnd = base + i
                    versionStart = targetEnd + 1
                    state = .version
                } else if b == ByteClass.cr || b == ByteClass.lf {
                    return fail(.invalidVersion, i)
                } else {
                    return fail(.invalidRequestTarget, i)
                }

            case .version:
                requestLineBytes += 1
                if requestLineBytes > limits.maxRequestLineBytes { return fail(.requestLineTooLong, i) }
                if b == ByteClass.cr {
                    versionEnd = base + i
                    state = .requestLineLF
                } else if b == ByteClass.lf {
                    return fail(.bareLineFeed, i)
                } else if b > 0x20 && b < 0x7F {
                    if base + i + 1 - versionStart > 8 { return fail(.invalidVersion, i) }
                } else {
                    return fail(.invalidVersion, i)
                }

            case .requestLineLF:
                guard b == ByteClass.lf else { return fail(.bareCarriageReturn, i) }
                flush(upTo: i + 1)
                do {
                    version = try head.withUnsafeBufferPointer { buf throws(HTTPParseError) in
                        try HTTPVersion(requestLine: UnsafeBufferPointer(rebasing: buf[versionStart..<versionEnd]))
                    }
                } catch {
                    return fail(error, i)
                }
                headerBytes = 0
                state = .fieldStart

            case .fieldStart:
                if fields.count < limits.maxHeaderFields,
                    let line = WholeLine.field(bytes, at: i, limit: limits.maxHeaderBytes - headerBytes)
                {
                    fields.append(
                        .init(
                            nameStart: Int32(base + i), nameEnd: Int32(base + line.colon),
                            valueStart: Int32(base + line.valueStart), valueEnd: Int32(base + line.valueEnd)))
                    headerBytes += line.next - i
                    i = line.next
                    continue
                }
                headerBytes += 1
                if headerBytes > limits.maxHeaderBytes { return fail(.headerSectionTooLarge, i) }
                if b == ByteClass.cr {
                    state = .headEndLF
                } else if ByteClass.isToken(b) {
                    if fields.count >= limits.maxHeaderFields { return fail(.tooManyHeaderFields, i) }
                    fieldStart = base + i
                    state = .fieldName
                } else if ByteClass.isWhitespace(b) {
                    return fail(.obsoleteLineFolding, i)
                } else if b == ByteClass.lf {
                    return fail(.bareLineFeed, i)
                } else {
                    return fail(.invalidHeaderName, i)
                }

            case .fieldName:
                let nameRun = WordScan.run(
                    bytes, from: i, limit: limits.maxHeaderBytes - headerBytes, ByteClass.isToken)
                if nameRun > 0 {
                    headerBytes += nameRun
                    i += nameRun
                    continue
                }
                headerBytes += 1
                if headerBytes > limits.maxHeaderBytes { return fail(.headerSectionTooLarge, i) }
                if b == ByteClass.colon {
                    nameEnd = base + i
                    valueStart = nameEnd
                    valueEnd = nameEnd
                    state = .fieldValueOWS
                } else if ByteClass.isWhitespace(b) {
                    return fail(.whitespaceBeforeColon, i)
                } else {
                    return fail(.invalidHeaderName, i)
                }

            case .fieldValueOWS, .fieldValue:
                if state == .fieldValue {
                    let valueRun = WordScan.run(
                        bytes, from: i, limit: limits.maxHeaderBytes - headerBytes, words: WordScan.allFieldValue
                    ) {
                        ByteClass.isWhitespace($0) || ByteClass.isFieldValue($0)
                    }
                    if valueRun > 0 {
                        var last = i + valueRun - 1
                        while last >= i && ByteClass.isWhitespace(bytes[last]) { last -= 1 }
                        if last >= i { valueEnd = base + last + 1 }
                        headerBytes += valueRun
                        i += valueRun
                        continue
                    }
                }
                headerBytes += 1
                if headerBytes > limits.maxHeaderBytes { return fail(.headerSectionTooLarge, i) }
                if b == ByteClass.cr {
                    state = .fieldLF
                } else if b == ByteClass.lf {
                    return fail(.bareLineFeed, i)
                } else if ByteClass.isWhitespace(b) {
                } else if ByteClass.isFieldValue(b) {
                    if state == .fieldValueOWS {
                        valueStart = base + i
                        state = .fieldValue
                    }
                    valueEnd = base + i + 1
                } else {
                    return fail(.invalidHeaderValue, i)
                }

            case .fieldLF:
                headerBytes += 1
                if headerBytes > limits.maxHeaderBytes { return fail(.headerSectionTooLarge, i) }
                guard b == ByteClass.lf else { return fail(.bareCarriageReturn, i) }
                fields.append(
                    .init(
                        nameStart: Int32(fieldStart), nameEnd: Int32(nameEnd),
                        valueStart: Int32(valueStart), valueEnd: Int32(valueEnd)))
                state = .fieldStart

            case .headEndLF:
                headerBytes += 1
                if headerBytes > limits.maxHeaderBytes { return fail(.headerSectionTooLarge, i) }
                guard b == ByteClass.lf else { return fail(.bareCarriageReturn, i) }
                i += 1
                flush(upTo: i)
                from = nil
                let framing: Framing
                do {
                    framing = try finishHead()
                } catch {
                    return fail(error, i - 1)
                }
                switch framing {
                case .noBody:
                    return (i, .request(takeRequest()))
                case .length(let length):
                    remaining = length
                    declaredBodyLength = length
                    body = []
                    // Grown as bytes arrive, not reserved from the declared length: a header alone
                    // must not make the server allocate a megabyte.
                    body.reserveCapacity(min(length, 16_384))
                    state = .lengthBody
                    return (i, .headComplete)
                case .chunked:
                    declaredBodyLength = nil
                    body = []
                    chunked = ChunkedBody()
                    state = .chunkedBody
                    return (i, .headComplete)
                }

            case .lengthBody:
                let take = min(remaining, n - i)
                if body.count + take > body.capacity {
                    // The body is arriving (not just announced): reserve exactly what is declared
                    // (the server charged all of it to its body budget) rather than let doubling
                    // allocate up to twice that.
                    body.reserveCapacity(body.count + remaining)
                }
                body.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i..<(i + take)]))
                remaining -= take
                i += take
                if remaining == 0 { return (i, .request(takeRequest())) }
                continue

            case .chunkedBody:
                switch chunked.decode(bytes, from: i, into: &body, limits: limits) {
                case .needMoreData: return (n, .needMoreData)
                case .complete(let end): return (end, .request(takeRequest()))
                case .failure(let error, let at): return fail(error, at)
                }
            }
            i += 1
        }
        if from != nil && isInHead { flush(upTo: n) }
        return (n, .needMoreData)
    }

    private mutating func fail(_ error: HTTPParseError, _ at: Int) -> (consumed: Int, event: Event) {
        state = .failed
        failure = error
        return (at, .failure(error))
    }

    /// Applies the message-level rules once the head is complete (`HeadFields`), builds the pending
    /// request and says how its body is framed.
    private mutating func finishHead() throws(HTTPParseError) -> Framing {
        let read = try head.withUnsafeBufferPointer { buf throws(HTTPParseError) in
            try HeadFields.read(buf, fields: fields, version: version, maxBodyBytes: limits.maxBodyBytes)
        }
        let (method, decoded) = try head.withUnsafeBufferPointer { buf throws(HTTPParseError) in
            let m = HTTPMethod(bytes: UnsafeBufferPointer(rebasing: buf[0..<methodEnd]))
            let target = UnsafeBufferPointer(rebasing: buf[targetStart..<targetEnd])
            return (m, try RequestTarget.decode(target, method: m, plain: plainTarget))
        }
        expectsContinue = read.expectsContinue
        if var request = spare.take(), request.isReusable() {
            request.reuse(
                method: method, target: targetStart..<targetEnd, decodedPath: decoded.path,
                queryParameters: decoded.query, version: version,
                headers: HTTPRequestHeaders.handingOver(&head, fields: fields), keepAlive: read.keepAlive)
            pending = consume request
        } else {
            pending = HTTPRequest(
                method: method, target: targetStart..<targetEnd, decodedPath: decoded.path,
                queryParameters: decoded.query, version: version,
                headers: HTTPRequestHeaders.handingOver(&head, fields: fields), keepAlive: read.keepAlive)
        }
        return read.framing
    }

    private mutating func takeRequest() -> HTTPRequest {
        // Moved out, not copied (a copy retained and released every field of the request).
        guard var request = pending.take() else { preconditionFailure("a request completes only after its head") }
        if !body.isEmpty {
            request.body = body
            body = []
        }
        // The request took the head's buffer (`handingOver` left `head` empty): the next head goes
        // into the one `recycle` gives back, or into a new one made when it starts.
        precondition(head.isEmpty, "a finished request took its head's buffer")
        fields.removeAll(keepingCapacity: true)
        expectsContinue = false
        emptyLines = 0
        state = .start
        isIdle = true
        return request
    }
}

extension HTTPRequestParser.Event {
    /// The request of a `.request` event, moved out (the event is left as `.needMoreData`), so the
    /// caller holds the only reference to it.
    mutating func takeRequest() -> HTTPRequest? {
        guard case .request(let request) = self else { return nil }
        self = .needMoreData
        return request
    }
}
